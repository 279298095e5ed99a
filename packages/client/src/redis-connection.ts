import { Redis, type RedisOptions } from 'ioredis';

/**
 * Opens an ioredis connection for BullMQ. `maxRetriesPerRequest: null` is what BullMQ workers
 * require (blocking commands must wait through a Redis restart instead of failing).
 */
export function createRedisConnection(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    // Reconnect quickly but never give up: a Redis restart must not kill a service.
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...options,
  });
}
