import { rmSync } from 'node:fs';
import { findOnPath } from './find-on-path';
import { freePort } from './free-port';
import {
  REDIS_NOT_FOUND_MESSAGE,
  RedisServerProcess,
  temporaryRedisDir,
  type RedisServer,
  type RedisServerOptions,
} from './redis-server';

/** Attempts when the port picked by {@link freePort} is taken before Redis binds it. */
const PORT_ATTEMPTS = 3;

/**
 * Starts a private `redis-server` on 127.0.0.1 (no RDB snapshots; append-only only on request) and
 * resolves once it answers `PING`. Each test file and the local demo get their own Redis, so
 * nothing is shared with a developer's Redis and chaos tests can kill it freely.
 *
 * @example
 * ```ts
 * const redis = await startRedis({ appendOnly: true });
 * await redis.kill('SIGKILL');
 * await redis.restart(); // same port, same data directory
 * await redis.stop();
 * ```
 */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  if (!findOnPath('redis-server')) throw new Error(REDIS_NOT_FOUND_MESSAGE);
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    const dir = options.dir ?? temporaryRedisDir();
    const server = new RedisServerProcess(port, dir, options);
    try {
      await server.start();
      options.log?.('Redis: private redis-server started', { url: server.url, pid: server.pid, dir });
      return server;
    } catch (error) {
      if (options.dir === undefined) rmSync(dir, { recursive: true, force: true });
      const retry = options.port === undefined && attempt < PORT_ATTEMPTS && server.lostPortRace();
      if (!retry) throw error;
      options.log?.('Redis: port was taken before redis-server bound it; trying another', { port, attempt });
    }
  }
}
