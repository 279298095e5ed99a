import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SasClient } from '@sas/client';
import { ManagedProcess, pingRedis, resolveMongo, startRedis } from '@sas/stack';
import { WORKSPACE_ROOT, run } from '../support/pack-workspace';
import { processAlive } from '../stack/process-alive';

/**
 * `sas up`'s promises beyond the happy path (test/packaging/registry.test.ts runs that one from a
 * registry install): a workflows file the checker refuses stops it before anything starts, and a
 * service that dies is reported loudly and stops everything: nothing is restarted silently. And the
 * demo (the README's quick start), which is `sas up` with the built-in workflows, remote-sim and orders.
 */

const SAS = join(WORKSPACE_ROOT, 'tools', 'cli', 'bin', 'sas.js');
let dir: string;
const started: ManagedProcess[] = [];

function sasUp(name: string, args: string[]): ManagedProcess {
  const proc = new ManagedProcess({ name, command: process.execPath, args: [SAS, 'up', '--log-dir', join(dir, name), '--data-dir', join(dir, `${name}-data`), ...args], cwd: dir, logFile: join(dir, `${name}.log`), ownProcessGroup: true });
  started.push(proc);
  return proc;
}

/** `pid args` of every process below `pid`: what sas up started (services, redis-server, the embedded MongoDB). */
function servicesOf(pid: number): string[] {
  const rows = run('ps', ['-eo', 'pid=,ppid=,args='], dir, 10_000).stdout.split('\n').map((l) => l.trim().split(/\s+/));
  const children = (parent: string): string[][] => rows.filter((r) => r[1] === parent);
  const found: string[] = [];
  const walk = (parent: string): void => {
    for (const r of children(parent)) {
      found.push(`${r[0]} ${r.slice(2).join(' ')}`);
      walk(r[0] as string);
    }
  };
  walk(String(pid));
  return found;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sas-up-'));
});
afterAll(async () => {
  for (const proc of started) await proc.stop(20_000);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('sas <role>', () => {
  it('runs the service of that role in its own process: the HTTP agent refuses to start without AGENT', async () => {
    const agent = new ManagedProcess({ name: 'role-agent', command: process.execPath, args: [SAS, 'agent'], cwd: dir, env: { AGENT: undefined }, logFile: join(dir, 'role-agent.log') });
    started.push(agent);
    await agent.start();
    const exit = await agent.whenExited();
    expect(exit?.code).toBe(1);
    expect(agent.lines.map((l) => l.text).join('\n')).toMatch(/agent failed to start: Invalid configuration:\s+AGENT: AGENT is required/);
  }, 60_000);

  it('starts a scheduler on the Redis and MongoDB its environment names, which logs its ready line and stops on SIGTERM', async () => {
    const redis = await startRedis();
    const mongo = await resolveMongo({ env: {} });
    try {
      const scheduler = new ManagedProcess({ name: 'role-scheduler', command: process.execPath, args: [SAS, 'scheduler'], cwd: dir, env: { REDIS_URL: redis.url, MONGO_URL: mongo.url, MONGO_DB: 'role-test', QUEUE_PREFIX: 'role-test' }, logFile: join(dir, 'role-scheduler.log') });
      started.push(scheduler);
      await scheduler.start();
      await scheduler.waitForLine((l) => l.json?.['msg'] === 'scheduler ready', 60_000, 'scheduler ready');
      await scheduler.stop(20_000);
      expect(scheduler.exitCode).toBe(0);
    } finally {
      await mongo.stop();
      await redis.stop();
    }
  }, 90_000);
});

describe('sas demo', () => {
  it('starts the system through sas up with remote-sim and the built-in agents, and settles its orders', async () => {
    const demo = new ManagedProcess({ name: 'demo', command: process.execPath, args: [SAS, 'demo', '--orders', '6', '--faults', 'mild'], cwd: dir, logFile: join(dir, 'demo.log'), ownProcessGroup: true });
    started.push(demo);
    await demo.start();
    const exit = await demo.whenExited();
    const output = demo.lines.map((l) => l.text).join('\n');
    expect({ code: exit?.code, tail: demo.describeLastLines(3) }).toMatchObject({ code: 0 });
    expect(output).toMatch(/all 10 processes ready \(remote-sim at http:\/\/127\.0\.0\.1:\d+\)/);
    expect(output).toContain('All 6 orders finished: each either fully processed or fully undone.');
    // The order the demo makes shipping refuse (the last of six) is undone; transient faults may undo others too.
    expect(output).toMatch(/^demo-[0-9a-f]+-006\s+Compensated\s+undone\s+undone\s+FAILED/m);
  }, 180_000);
});

describe('sas up', () => {
  it('refuses a workflows file the checker refuses, before starting anything', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify([{ name: 'signup', version: 1, steps: [], failureThreshold: 3, onThreshold: { policy: 'compensate' }, onPermanentFailure: 'compensate', retentionMs: 1000 }]));
    const up = sasUp('refused', ['--workflows', 'bad.json']);
    await up.start();
    const exit = await up.whenExited();
    const output = up.lines.map((l) => l.text).join('\n');
    expect(exit?.code).toBe(1);
    expect(output).toMatch(/workflows\[0\]\.steps: .*1/);
    expect(output).toContain('Nothing was started.');
    // Not even Redis or MongoDB: its log folder, made before anything starts, was never made.
    expect(output).not.toMatch(/^\s+(Redis|MongoDB):/m);
    expect(existsSync(join(dir, 'refused'))).toBe(false);
    expect(existsSync(join(dir, 'refused-data'))).toBe(false);
  }, 60_000);

  it('uses the Redis and MongoDB that REDIS_URL and MONGO_URL name, says so, and leaves them running when it stops', async () => {
    const redis = await startRedis();
    const mongo = await resolveMongo({ env: {} });
    try {
      const up = new ManagedProcess({ name: 'given', command: process.execPath, args: [SAS, 'up', '--log-dir', join(dir, 'given'), '--data-dir', join(dir, 'given-data')], cwd: dir, env: { REDIS_URL: redis.url, MONGO_URL: mongo.url, QUEUE_PREFIX: 'given', MONGO_DB: 'given' }, logFile: join(dir, 'given.log'), ownProcessGroup: true });
      started.push(up);
      await up.start();
      await up.waitForLine((l) => l.text.startsWith('processes: '), 120_000, 'the live line');
      const output = up.lines.map((l) => l.text).join('\n');
      expect(output).toContain(`  Redis: ${redis.url} (REDIS_URL)`);
      expect(output).toContain(`  MongoDB: ${mongo.url} (MONGO_URL)`);
      expect(output).toContain(`export REDIS_URL=${redis.url} QUEUE_PREFIX=given MONGO_URL='${mongo.url}' MONGO_DB=given`);
      // By default submission, the scheduler and the supervisor share one process.
      expect(output).toMatch(/^ {4}core-1 \(submission, scheduler, supervisor\) {2}pid \d+ {2}log \S+core-1\.log$/m);
      expect(output).toMatch(/^ {4}dashboard-1 {2}pid \d+/m);
      await up.kill('SIGINT');
      expect(up.exitCode).toBe(0);
      expect(await pingRedis(Number(new URL(redis.url).port))).toBe(true);
    } finally {
      await mongo.stop();
      await redis.stop();
    }
  }, 150_000);

  it('runs an HTTP agent per --agent NAME=MAPPING.json, whose calls reach the REST service the mapping names', async () => {
    const calls: { method: string; url: string; key: string | undefined; body: string }[] = [];
    const notes = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        calls.push({ method: req.method ?? '', url: req.url ?? '', key: req.headers['idempotency-key'] as string | undefined, body });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: `note-${calls.length}` }));
      });
    });
    await new Promise<void>((resolve) => notes.listen(0, '127.0.0.1', resolve));
    const port = (notes.address() as AddressInfo).port;
    writeFileSync(join(dir, 'notes-mapping.json'), JSON.stringify({ operations: { put: { method: 'PUT', url: `http://127.0.0.1:${port}/notes/{orderId}`, body: { text: '{payload.text}' } } } }));
    writeFileSync(join(dir, 'notes-workflows.json'), JSON.stringify([{ name: 'note', version: 1, steps: [{ name: 'store', agent: 'notes', operation: 'put', compensation: null, completeByMs: 10000, retry: {} }], failureThreshold: 3, onThreshold: { policy: 'compensate' }, onPermanentFailure: 'compensate', retentionMs: 86400000 }]));
    // Each service its own process, as production runs them (the other tests run sas up's shared core).
    const up = sasUp('http-agent', ['--workflows', 'notes-workflows.json', '--agent', 'notes=notes-mapping.json', '--separate-processes']);
    let client: SasClient | undefined;
    try {
      await up.start();
      await up.waitForLine((l) => l.text.startsWith('processes: '), 120_000, 'the live line');
      const ready = up.lines.map((l) => l.text).filter((l) => /^ {4}\S+ .*pid \d+/.test(l)).map((l) => l.trim().split(' ')[0]);
      expect(ready).toEqual(['agent-notes-1', 'scheduler-1', 'supervisor-1', 'submission-1', 'dashboard-1', 'embedded-mongo', expect.stringMatching(/^redis:\d+$/)]);
      const line = up.lines.find((l) => l.text.includes('export REDIS_URL='))?.text ?? '';
      client = new SasClient({ redisUrl: /REDIS_URL=(\S+)/.exec(line)?.[1] ?? '', prefix: /QUEUE_PREFIX=(\S+)/.exec(line)?.[1] ?? '', replyTo: 'notes.status' });
      await client.submit({ orderId: 'n-1', workflow: 'note', payload: { text: 'hello' } });
      expect((await client.waitFor('n-1', { until: ['Processed', 'Compensated'], timeoutMs: 60_000 })).status).toBe('Processed');
      expect(calls).toEqual([{ method: 'PUT', url: '/notes/n-1', key: expect.stringMatching(/.+/), body: JSON.stringify({ text: 'hello' }) }]);
    } finally {
      await client?.close();
      await up.stop(20_000);
      await new Promise((resolve) => notes.close(resolve));
    }
  }, 180_000);

  it('refuses a mapping the HTTP agent would refuse, before starting anything', async () => {
    writeFileSync(join(dir, 'bad-mapping.json'), JSON.stringify({ operations: { put: { method: 'FETCH', url: 'http://127.0.0.1:1/x' } } }));
    const up = sasUp('bad-mapping', ['--agent', 'notes=bad-mapping.json']);
    await up.start();
    const exit = await up.whenExited();
    const output = up.lines.map((l) => l.text).join('\n');
    expect(exit?.code).toBe(1);
    expect(output).toMatch(/--agent notes: AGENT_MAPPING_FILE '.*bad-mapping\.json' is not a valid mapping:\s+operations\.put\.method: Invalid enum value/);
    expect(existsSync(join(dir, 'bad-mapping'))).toBe(false);
    expect(existsSync(join(dir, 'bad-mapping-data'))).toBe(false);
  }, 60_000);

  it('kills everything at once on a second Ctrl-C, and says so', async () => {
    const up = sasUp('twice', []);
    await up.start();
    await up.waitForLine((l) => l.text.startsWith('processes: '), 120_000, 'the live line');
    const before = servicesOf(up.pid ?? -1);
    expect(before.length).toBeGreaterThanOrEqual(4); // the core, the dashboard, the embedded MongoDB, redis-server
    process.kill(up.pid ?? -1, 'SIGINT');
    await up.waitForLine((l) => l.text.includes('stopping the roles and agents'), 10_000, 'the first Ctrl-C');
    process.kill(up.pid ?? -1, 'SIGINT');
    const exit = await up.whenExited();
    expect(up.lines.map((l) => l.text).join('\n')).toContain('sas up: SIGINT again: killing every process now (SIGKILL).');
    expect(exit?.code).toBe(0);
    expect(before.filter((p) => processAlive(Number(p.split(' ')[0])))).toEqual([]);
  }, 120_000);

  it('restarts a service that dies, and stops everything with exit 1 when it keeps dying (a crash loop)', async () => {
    const workflows = join(dir, 'loop-workflows.json');
    writeFileSync(workflows, readFileSync(join(WORKSPACE_ROOT, 'test/packaging/registry-app/workflows.json')));
    const up = sasUp('dies', ['--workflows', workflows]);
    await up.start();
    await up.waitForLine((l) => l.text.startsWith('processes: '), 120_000, 'the live line');
    const before = servicesOf(up.pid ?? -1);
    // The shared process of submission, scheduler and supervisor, and no separate one of those roles.
    expect(before.filter((p) => /\/(submission|scheduler|supervisor)\/dist\/main\.js/.test(p))).toEqual([]);
    const core = before.find((p) => p.includes('/up/core-main.js'));
    expect(core).toBeDefined();
    process.kill(Number(core?.split(' ')[0]), 'SIGKILL');
    await up.waitForLine((l) => l.text.trim().startsWith('core-1 is back'), 60_000, 'core-1 restarted');
    expect(up.lines.map((l) => l.text).join('\n')).toMatch(/!! core-1 died \(killed by SIGKILL\)\. Its last lines:[\s\S]*!! restarting core-1 in 1 s \(restart 1\); the other services keep running/);
    // The others ran on: the dashboard is the same process.
    const dashboard = before.find((p) => p.includes('/dashboard/'));
    expect(dashboard !== undefined && processAlive(Number(dashboard.split(' ')[0]))).toBe(true);
    // From now on the core cannot start (its workflows file is gone): each restart dies, until sas up calls it a crash loop.
    rmSync(workflows);
    const restarted = servicesOf(up.pid ?? -1).find((p) => p.includes('/up/core-main.js'));
    process.kill(Number(restarted?.split(' ')[0]), 'SIGKILL');
    const exit = await up.whenExited();
    const output = up.lines.map((l) => l.text).join('\n');
    expect(exit?.code).toBe(1);
    expect(output).toMatch(/!! core-1 died 5 times within 60 s: a crash loop, which a restart will not mend\. sas up stops every service/);
    // Every other service, the private Redis and the embedded MongoDB are gone with it.
    const left = before.filter((p) => processAlive(Number(p.split(' ')[0])));
    expect(left).toEqual([]);
  }, 240_000);
});
