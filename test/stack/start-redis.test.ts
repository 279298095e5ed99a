import { pingRedis, rawRedisCommand, startRedis, type RedisServer } from '@sas/stack';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from './process-alive';

describe('startRedis', () => {
  const started: RedisServer[] = [];
  const dirs: string[] = [];

  afterEach(async () => {
    await Promise.allSettled(started.splice(0).map((r) => r.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function start(options?: Parameters<typeof startRedis>[0]): Promise<RedisServer> {
    const redis = await startRedis(options);
    started.push(redis);
    return redis;
  }

  it('starts a private redis-server on 127.0.0.1 that answers PING', async () => {
    const redis = await start();
    expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
    expect(redis.pid).toEqual(expect.any(Number));
    await expect(pingRedis(redis.port)).resolves.toBe(true);
    await expect(rawRedisCommand(redis.port, 'INFO persistence')).resolves.toContain('aof_enabled:0');
  });

  it('comes back on the same port after a SIGKILL and a restart', async () => {
    const redis = await start();
    const { port } = redis;
    const firstPid = redis.pid;
    await redis.kill('SIGKILL');
    expect(redis.pid).toBeUndefined();
    await expect(pingRedis(port, 300)).resolves.toBe(false);

    await redis.restart();
    expect(redis.port).toBe(port);
    expect(redis.pid).toEqual(expect.any(Number));
    expect(redis.pid).not.toBe(firstPid);
    await expect(pingRedis(port)).resolves.toBe(true);
  });

  it('keeps data in its directory across a stop and restart when started append-only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sas-redis-test-'));
    dirs.push(dir);
    const redis = await start({ appendOnly: true, dir });
    await expect(rawRedisCommand(redis.port, 'INFO persistence')).resolves.toContain('aof_enabled:1');
    await expect(rawRedisCommand(redis.port, 'SET survivor yes')).resolves.toBe('+OK');
    await redis.stop();
    expect(existsSync(dir)).toBe(true); // a caller's directory is never removed

    await redis.restart();
    await expect(rawRedisCommand(redis.port, 'GET survivor')).resolves.toBe('yes');
  });

  it('leaves no process and no temporary directory after stop', async () => {
    const redis = await start();
    const pid = redis.pid ?? -1;
    const { dir, port } = redis;
    expect(existsSync(dir)).toBe(true);
    await redis.stop();
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    await expect(pingRedis(port, 300)).resolves.toBe(false);
    await expect(redis.stop()).resolves.toBeUndefined();
  });

  it('explains how to install redis-server when it is not on PATH', async () => {
    const savedPath = process.env.PATH;
    process.env.PATH = '/nonexistent-sas-test-dir';
    try {
      await expect(startRedis()).rejects.toThrow(
        'redis-server not found on PATH. Install it (Debian: apt-get install redis-server) or set REDIS_URL to use an existing Redis.',
      );
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it('includes the last output lines when redis-server exits during startup', async () => {
    const first = await start();
    const attempt = startRedis({ port: first.port });
    await expect(attempt).rejects.toThrow(`redis-server on port ${first.port} exited before answering PING`);
    await expect(attempt).rejects.toThrow(/Address already in use/);
  });
});
