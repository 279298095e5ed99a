import { resolveMongo, startEmbeddedMongo, type MongoTarget } from '@sas/stack';
import { MongoClient } from 'mongodb';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accepts } from './port-accepts';

/** Behaves like `@sas/embedded-mongo`'s CLI on the outside: one JSON line when listening, exit 0 on SIGTERM. */
const FAKE_CLI = `
const net = require('node:net');
const args = process.argv.slice(2);
if (process.env.FAKE_MONGO_FAIL === '1') { console.error('fake mongo: cannot open data'); process.exit(2); }
if (process.env.FAKE_MONGO_ARGS_FILE) require('node:fs').writeFileSync(process.env.FAKE_MONGO_ARGS_FILE, JSON.stringify(args));
const server = net.createServer((socket) => socket.end());
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log('starting up'); // not JSON: must be skipped
  console.log(JSON.stringify({ event: 'listening', url: 'mongodb://127.0.0.1:' + port + '/?directConnection=true', port, args }));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

/**
 * Enough of a \`mongod\` for mongodb-memory-server-core: answers \`--version\`, listens on \`--port\`,
 * prints the line the library waits for, and exits on SIGINT (how the library stops it).
 */
const FAKE_MONGOD = `#!${process.execPath}
const net = require('node:net');
const args = process.argv.slice(2);
if (args.includes('--version')) { console.log('db version v8.2.6'); process.exit(0); }
const port = Number(args[args.indexOf('--port') + 1]);
const server = net.createServer((socket) => socket.end());
server.listen(port, '127.0.0.1', () => console.log('{"msg":"Waiting for connections","attr":{"port":' + port + '}}'));
const stop = () => server.close(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
`;


function portOf(url: string): number {
  const match = /:(\d+)\//.exec(url);
  if (!match?.[1]) throw new Error(`no port in ${url}`);
  return Number(match[1]);
}

describe('resolveMongo', () => {
  let dir: string;
  let fakeCli: string;
  const targets: MongoTarget[] = [];
  const noMongo: NodeJS.ProcessEnv = { PATH: '/nonexistent-sas-test-dir' };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sas-resolve-mongo-'));
    fakeCli = join(dir, 'fake-cli.js');
    writeFileSync(fakeCli, FAKE_CLI);
  });

  afterEach(async () => {
    await Promise.allSettled(targets.splice(0).map((t) => t.stop()));
    delete process.env.FAKE_MONGO_FAIL;
    delete process.env.FAKE_MONGO_ARGS_FILE;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('uses MONGO_URL when it is set, and says so', async () => {
    const logged: string[] = [];
    const url = 'mongodb://db.example:27017/?replicaSet=rs0';
    const target = await resolveMongo({ env: { MONGO_URL: url, PATH: '' }, log: (msg) => logged.push(msg) });
    targets.push(target);
    expect(target).toMatchObject({ url, kind: 'external', reason: 'MONGO_URL is set' });
    expect(logged).toEqual(['MongoDB: external server (MONGO_URL is set)']);
    await expect(target.stop()).resolves.toBeUndefined();
  });

  it('rejects a MONGO_URL that is not a mongodb:// URL, saying what to do', async () => {
    await expect(resolveMongo({ env: { MONGO_URL: 'http://x' } })).rejects.toThrow(
      "MONGO_URL is not a mongodb:// URL (got 'http://x'); set it or unset it to use the embedded store",
    );
  });

  it('uses MONGOMS_SYSTEM_BINARY when set and fails rather than download when it is missing', async () => {
    const missing = join(dir, 'no-such-mongod');
    const attempt = resolveMongo({
      env: { MONGOMS_SYSTEM_BINARY: missing, PATH: '' },
      embeddedCliPath: fakeCli,
    });
    await expect(attempt).rejects.toThrow(
      `MongoDB: mongod binary ${missing} does not exist or is not executable`,
    );
  });

  it('runs a mongod found on PATH through mongodb-memory-server-core', async () => {
    const binDir = join(dir, 'bin');
    mkdirSync(binDir, { recursive: true });
    writeFileSync(join(binDir, 'mongod'), FAKE_MONGOD, { mode: 0o755 });
    const logged: string[] = [];
    const target = await resolveMongo({
      env: { PATH: binDir },
      log: (msg) => logged.push(msg),
      embeddedCliPath: fakeCli,
    });
    targets.push(target);
    expect(target.kind).toBe('memory-server');
    expect(target.reason).toBe(`no MONGO_URL; mongod found at ${join(binDir, 'mongod')}`);
    expect(logged[0]).toBe(`MongoDB: real mongod through mongodb-memory-server-core (${target.reason})`);
    const port = portOf(target.url);
    await expect(accepts(port)).resolves.toBe(true);

    await target.stop();
    await expect(accepts(port)).resolves.toBe(false);
  });

  it('starts the embedded server as its own process when there is no MONGO_URL and no mongod', async () => {
    const logged: string[] = [];
    const target = await resolveMongo({
      env: noMongo,
      log: (msg) => logged.push(msg),
      embeddedCliPath: fakeCli,
      ttlIntervalMs: 250,
    });
    targets.push(target);
    expect(target.kind).toBe('embedded');
    expect(target.reason).toBe('no MONGO_URL, no mongod binary');
    expect(target.url).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/\?directConnection=true$/);
    expect(logged[0]).toBe('MongoDB: embedded server (no MONGO_URL, no mongod binary)');
    const port = portOf(target.url);
    await expect(accepts(port)).resolves.toBe(true);

    await target.stop();
    await expect(accepts(port)).resolves.toBe(false);
  });

  it('passes --port 0 and --ttl-interval-ms to the embedded CLI', async () => {
    const argsFile = join(dir, 'args.json');
    process.env.FAKE_MONGO_ARGS_FILE = argsFile;
    targets.push(await startEmbeddedMongo({ cliPath: fakeCli, ttlIntervalMs: 250 }));
    expect(JSON.parse(readFileSync(argsFile, 'utf8'))).toEqual(['--port', '0', '--ttl-interval-ms', '250']);

    targets.push(await startEmbeddedMongo({ cliPath: fakeCli }));
    expect(JSON.parse(readFileSync(argsFile, 'utf8'))).toEqual(['--port', '0']);
  });

  it('reports the embedded CLI output when it exits before listening', async () => {
    process.env.FAKE_MONGO_FAIL = '1';
    await expect(startEmbeddedMongo({ cliPath: fakeCli })).rejects.toThrow(
      /MongoDB: the embedded server \(.*fake-cli\.js\) did not start: .*the process exited \(code 2[\s\S]*cannot open data/,
    );
  });

  it('runs the real @sas/embedded-mongo CLI and answers a ping from the official driver', async () => {
    const target = await resolveMongo({ env: noMongo, ttlIntervalMs: 1000 });
    targets.push(target);
    expect(target.kind).toBe('embedded');
    const client = await MongoClient.connect(target.url, { serverSelectionTimeoutMS: 5000 });
    try {
      await expect(client.db('admin').command({ ping: 1 })).resolves.toMatchObject({ ok: 1 });
    } finally {
      await client.close();
    }
  });
});
