import { TransientError } from './transient-error';

/**
 * Redis did not take a command in time: it is restarting, unreachable, or a Redis Cluster is
 * failing over. The message is not at fault, so consumers retry it without spending its
 * deliveries (see `redisTransientReason`).
 */
export class RedisUnavailableError extends TransientError {
  override readonly name: string = 'RedisUnavailableError';
}
