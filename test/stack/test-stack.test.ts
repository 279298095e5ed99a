import { pingRedis } from '@sas/stack';
import { TestStack } from '@sas/testkit';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accepts } from './port-accepts';

/** Stands in for `@sas/embedded-mongo`'s CLI: one JSON line when listening, exit 0 on SIGTERM. */
const FAKE_MONGO_CLI = `
const server = require('node:net').createServer((socket) => socket.end());
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(JSON.stringify({ event: 'listening', url: 'mongodb://127.0.0.1:' + port + '/?directConnection=true', port }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/** A "service" that logs the environment it was given as one pino-like line, then idles. */
const ECHO_SERVICE = `
const pick = ['REDIS_URL', 'MONGO_URL', 'MONGO_DB', 'QUEUE_PREFIX', 'LOG_LEVEL', 'EXTRA'];
process.on('SIGTERM', () => process.exit(0));
console.log(JSON.stringify({ msg: 'env', env: Object.fromEntries(pick.map((k) => [k, process.env[k]])) }));
setInterval(() => {}, 60000);
`;


describe('TestStack', () => {
  let root: string;
  let fakeMongo: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sas-test-stack-'));
    writeFileSync(join(root, 'pnpm-workspace.yaml'), 'packages: []\n');
    mkdirSync(join(root, 'services', 'echo', 'dist'), { recursive: true });
    writeFileSync(join(root, 'services', 'echo', 'dist', 'main.js'), ECHO_SERVICE);
    fakeMongo = join(root, 'fake-mongo-cli.js');
    writeFileSync(fakeMongo, FAKE_MONGO_CLI);
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function startStack(name: string): Promise<TestStack> {
    return TestStack.start({ name, root, mongo: { env: { PATH: '' }, embeddedCliPath: fakeMongo } });
  }

  it('gives each stack its own Redis, queue prefix and database in the services env', async () => {
    const [a, b] = await Promise.all([startStack('stack-a'), startStack('stack-b')]);
    try {
      expect(a.env).toEqual({
        REDIS_URL: a.redis.url,
        MONGO_URL: a.mongo.url,
        MONGO_DB: a.dbName,
        QUEUE_PREFIX: a.queuePrefix,
        LOG_LEVEL: 'info',
      });
      expect(a.mongo.kind).toBe('embedded');
      await expect(pingRedis(a.redis.port)).resolves.toBe(true);
      expect(a.redis.port).not.toBe(b.redis.port);
      expect(a.queuePrefix).not.toBe(b.queuePrefix);
      expect(a.dbName).not.toBe(b.dbName);
      expect(a.dbName).toMatch(/^stack-a-/);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('spawns services with the stack env and writes one log file per process', async () => {
    const stack = await startStack('spawn-test');
    try {
      const first = await stack.spawn('echo', { EXTRA: 'x' });
      const second = await stack.spawn('echo');
      const payment = await stack.spawn('echo', {}, 'payment');
      expect([first.name, second.name, payment.name]).toEqual(['echo-1', 'echo-2', 'echo-payment-1']);

      const line = await first.waitForLine((l) => l.json?.msg === 'env', 10_000, 'the env line');
      expect(line.json?.env).toEqual({ ...stack.env, EXTRA: 'x' });

      await second.waitForLine((l) => l.json?.msg === 'env', 10_000, 'the env line');
      await second.stop();
      const logFile = join(tmpdir(), 'sas-test-logs', 'spawn-test', 'echo-2.log');
      expect(stack.logFiles).toContain(logFile);
      expect(readFileSync(logFile, 'utf8')).toContain('"msg":"env"');

      await expect(
        stack.waitFor(() => false, { timeoutMs: 50, description: 'something that never happens' }),
      ).rejects.toThrow(`TestStack 'spawn-test' service logs:\n  ${join(stack.logDir, 'echo-1.log')}`);
    } finally {
      await stack.stop();
    }
  });

  it('stops every process, Redis and MongoDB, even when a service already died', async () => {
    const stack = await startStack('stop-test');
    const alive = await stack.spawn('echo');
    // Its SIGTERM handler is installed once it has logged; before that SIGTERM kills by default.
    await alive.waitForLine((l) => l.json?.msg === 'env', 10_000, 'the env line');
    const crashed = await stack.spawn('echo');
    await crashed.kill();
    const mongoPort = Number(/:(\d+)\//.exec(stack.mongo.url)?.[1]);

    await stack.stop();
    expect(alive.running).toBe(false);
    expect(alive.exits.at(-1)).toMatchObject({ code: 0, expected: true });
    await expect(pingRedis(stack.redis.port, 300)).resolves.toBe(false);
    await expect(accepts(mongoPort)).resolves.toBe(false);
    await expect(stack.stop()).resolves.toBeUndefined();
    await expect(stack.spawn('echo')).rejects.toThrow("TestStack 'stop-test' is stopped; start a new one");
  });

  it('says to build first when a service has no dist/main.js', async () => {
    const stack = await startStack('unbuilt');
    try {
      await expect(stack.spawn('missing')).rejects.toThrow(
        `Service 'missing' is not built: ${join(root, 'services', 'missing', 'dist', 'main.js')} does not exist; run \`pnpm build\` first`,
      );
    } finally {
      await stack.stop();
    }
    expect(existsSync(join(root, 'services', 'missing'))).toBe(false);
  });

  it('opens a MongoDB client on its own database with the real embedded server', async () => {
    const stack = await TestStack.start({ name: 'mongo-client', mongo: { env: { PATH: '' } } });
    try {
      const client = await stack.mongoClient();
      expect(client.db().databaseName).toBe(stack.dbName);
      await client
        .db()
        .collection('probe')
        .insertOne({ _id: 'one' as never, ok: true });
      await expect(client.db().collection('probe').findOne({})).resolves.toEqual({ _id: 'one', ok: true });
    } finally {
      await stack.stop();
    }
  });
});
