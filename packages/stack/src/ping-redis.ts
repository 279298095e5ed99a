import { rawRedisCommand } from './raw-redis-command';

/**
 * Whether a Redis on `127.0.0.1:port` answers `PING` with `+PONG` within `timeoutMs`. A server
 * still loading its append-only file answers `-LOADING`, which counts as not ready.
 */
export async function pingRedis(port: number, timeoutMs = 1000): Promise<boolean> {
  return (await rawRedisCommand(port, 'PING', timeoutMs)) === '+PONG';
}
