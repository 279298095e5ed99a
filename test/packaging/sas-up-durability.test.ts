import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SasClient } from '@sas/client';
import type { ProcessDocument } from '@sas/contracts';
import { ManagedProcess, ServiceProcess, type OutputLine } from '@sas/stack';
import { MongoClient } from 'mongodb';
import { kindOf, repeatedEffects, unundoneEffects } from '../support/ledger-checks';
import { type LocalRegistry, applicationEnv, startLocalRegistry } from '../support/local-registry';
import { WORKSPACE_ROOT, run } from '../support/pack-workspace';
import { processAlive } from '../stack/process-alive';
import type { LedgerEffect } from '../support/system-fixture';
import { tripBookingForTest, tripUndoPairs } from '../support/trip-workflows';

/**
 * `sas up` loses nothing (decision 133), as a team runs it: installed from a registry, on its own
 * workflow (the trip: a parallel group, a signal, a wait, a charge) and HTTP agents with mappings,
 * its state in a data folder. With orders in flight, in turn: kill -9 of the core, of one agent,
 * of the embedded MongoDB and of the private Redis, each restarted by `sas up` while the rest keep
 * running; then kill -9 of `sas up` and every process under it, and a new `sas up` on the same
 * folder. The remote runs `plain` (it applies a late forward call after its undo, so the ledger
 * shows what the engine did), outside `sas up` so that its ledger outlives every kill. Every order
 * must end Processed or fully undone, with no effect doubled and none left un-undone.
 */

const progress = (message: string): void => {
  process.stdout.write(`[sas-up-durability ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
};
const version = (JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'tools/cli/package.json'), 'utf8')) as { version: string }).version;
const AGENTS = ['flight', 'hotel', 'payment'];
const FINISHED = ['Processed', 'Compensated', 'Canceled'];

let registry: LocalRegistry;
let app: string;
let remote: ServiceProcess;
let remoteUrl: string;
let up: ManagedProcess | undefined;
let exports: Record<string, string> = {};
const workflow = { ...tripBookingForTest() };
// The confirmation must outlive a restart of the whole sas up (npx and start-up take seconds on a loaded machine).
workflow['steps'] = (workflow['steps'] as Record<string, unknown>[]).map((s) => (s['signal'] ? { ...s, signal: { ...(s['signal'] as object), timeoutMs: 90_000 } } : s));
const orders: string[] = [];

function startUp(name: string): ManagedProcess {
  const args = ['up', '--workflows', 'workflows.json', '--data-dir', 'data', ...AGENTS.flatMap((a) => ['--agent', `${a}=remote.json`])];
  // The installed bin itself (not through npx, which dies of a SIGINT at once), so its exit code and a kill -9 are its own.
  return new ManagedProcess({ name, command: join(app, 'node_modules', '.bin', 'sas'), args, cwd: app, env: applicationEnv(), logFile: join(app, `${name}.log`), ownProcessGroup: true });
}

async function upAndRunning(name: string): Promise<ManagedProcess> {
  const proc = startUp(name);
  await proc.start();
  await proc.waitForLine((l) => l.text.startsWith('sas is up'), 180_000, 'sas is up');
  const line = await proc.waitForLine((l) => l.text.includes('export REDIS_URL='), 5_000, 'the export line');
  exports = Object.fromEntries([...line.text.matchAll(/(\w+)='?([^' ]+)'?/g)].map((m) => [m[1] as string, m[2] as string]));
  return proc;
}

/** The processes sas up recorded in its data folder (after every start and restart), by name. */
function recorded(): Map<string, number> {
  const state = JSON.parse(readFileSync(join(app, 'data', 'sas-up.json'), 'utf8')) as { children: { name: string; pid: number }[] };
  return new Map(state.children.map((c) => [c.name, c.pid]));
}

async function remoteGet<T>(path: string): Promise<T> {
  const res = await fetch(`${remoteUrl}${path}`);
  if (!res.ok) throw new Error(`remote-sim GET ${path}: ${res.status}`);
  return (await res.json()) as T;
}

/** The first trip of each batch is refused by the hotel: its flight booking must be undone, so the undo checks below are not vacuous. */
const REFUSED_BY_HOTEL = ['core-1', 'agent-1', 'mongo-1', 'redis-1', 'all-1', 'orphaned-1'];

async function setLatency(ms: number): Promise<void> {
  for (const service of AGENTS) {
    const faults = { latencyMs: ms, ...(service === 'hotel' && { permanentFailOrders: REFUSED_BY_HOTEL }) };
    const res = await fetch(`${remoteUrl}/admin/faults/${service}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
    if (!res.ok) throw new Error(`remote-sim faults: ${res.status}`);
  }
}

async function until(description: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function processes(ids: readonly string[]): Promise<ProcessDocument[]> {
  const client = await MongoClient.connect(exports['MONGO_URL'] ?? '', { serverSelectionTimeoutMS: 3000 });
  try {
    return await client.db(exports['MONGO_DB']).collection<ProcessDocument>('processes').find({ orderId: { $in: [...ids] } }).toArray();
  } finally {
    await client.close();
  }
}

/** Submits a batch of trips, waits until each is stored, confirms them (half express, half through the wait), and waits until calls of theirs are at the remote. */
async function tripsInFlight(batch: string): Promise<string[]> {
  const ids = [1, 2, 3, 4].map((i) => `${batch}-${i}`);
  orders.push(...ids);
  const client = new SasClient({ redisUrl: exports['REDIS_URL'] ?? '', prefix: exports['QUEUE_PREFIX'] ?? 'sas' });
  try {
    await client.submitAll(ids.map((id, i) => ({ orderId: id, workflow: 'trip-booking', payload: { traveller: `t-${id}`, dayTrip: i === 3, amount: 1000 + i } })));
    await until(`a process for each of ${ids.join(', ')}`, async () => (await processes(ids)).length === ids.length, 30_000);
    // A trip the hotel refuses never reaches its signal step: it is not confirmed.
    for (const [i, id] of ids.entries()) if (!REFUSED_BY_HOTEL.includes(id)) expect((await client.signal(id, 'confirm', { express: i % 2 === 0 }, { timeoutMs: 30_000 })).ok).toBe(true);
  } finally {
    await client.close();
  }
  await until(`calls of ${batch} at the remote`, async () => (await remoteGet<{ arrivals: { orderId: string }[] }>('/arrivals')).arrivals.some((a) => ids.includes(a.orderId)), 30_000);
  return ids;
}

/** Every order submitted so far ends Processed, Compensated or Canceled, on whichever sas up runs now. */
async function allOrdersFinish(): Promise<void> {
  await until(`all ${orders.length} orders finished`, async () => (await processes(orders)).filter((p) => FINISHED.includes(p.state)).length === orders.length, 180_000);
}

/** kill -9 of the child sas up recorded as `name`, then its console line saying it is back. */
async function killAndSeeRestart(name: string): Promise<void> {
  const pid = recorded().get(name);
  if (pid === undefined) throw new Error(`sas up recorded no ${name}: ${[...recorded().keys()].join(', ')}`);
  const upProc = up as ManagedProcess;
  const before = upProc.lines.length;
  const killedAt = Date.now();
  process.kill(pid, 'SIGKILL');
  const back = (l: OutputLine): boolean => l.text.trim().startsWith(`${name} is back`);
  await until(`sas up to restart ${name}`, async () => upProc.lines.slice(before).some(back), 60_000);
  progress(`${name} (pid ${pid}) killed; back in ${Date.now() - killedAt} ms`);
  expect(upProc.lines.slice(before).map((l) => l.text).join('\n')).toContain(`!! ${name} died (killed by SIGKILL)`);
  expect(upProc.running).toBe(true);
}

beforeAll(async () => {
  const started = Date.now();
  registry = await startLocalRegistry(progress);
  app = mkdtempSync(join(tmpdir(), 'sas-up-durability-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'trip-app', version: '1.0.0', private: true }));
  writeFileSync(join(app, '.npmrc'), `${registry.scopeLine}\n`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `@sas/server@${version}`], app, 300_000, applicationEnv());
  progress(`npm installed the server in ${Date.now() - started} ms`);
  remote = new ServiceProcess({ name: 'remote-sim', script: join(WORKSPACE_ROOT, 'services/remote-sim/dist/main.js'), env: { PORT: '0', REMOTE_SIM_MODE: 'plain' }, logFile: join(app, 'remote-sim.log') });
  await remote.start();
  const listening = await remote.waitForLine((l) => l.json?.['msg'] === 'listening', 10_000, 'remote-sim listening');
  remoteUrl = String(listening.json?.['url'] ?? `http://127.0.0.1:${String(listening.json?.['port'])}`);
  // remote-sim's dialect as a mapping, at this remote-sim: what the built-in agents use, written out.
  writeFileSync(
    join(app, 'remote.json'),
    JSON.stringify({
      operations: {
        '*': {
          method: 'POST',
          url: `${remoteUrl}/services/{agent}/{operation}`,
          idempotencyHeader: 'Idempotency-Key',
          compensatesHeader: 'Compensates-Idempotency-Key',
          body: { orderId: '{orderId}', payload: '{payload}', results: '{results}', step: '{step}', attempt: '{attempt}', try: '{try}' },
          resultPath: 'result',
          resultFields: { effectId: 'effectId' },
        },
      },
    }),
  );
  writeFileSync(join(app, 'workflows.json'), JSON.stringify([workflow], null, 2));
}, 600_000);

afterAll(async () => {
  await up?.stop(30_000);
  await remote?.stop();
  await registry?.stop();
  if (app) rmSync(app, { recursive: true, force: true });
}, 90_000);

describe('sas up, installed from a registry, with its state in a data folder', () => {
  it('restarts each process killed with kill -9 (core, an agent, MongoDB, Redis) while orders are in flight, the others running on', async () => {
    up = await upAndRunning('sas-up-1');
    await setLatency(300);
    for (const [batch, victim] of [
      ['core', 'core-1'],
      ['agent', 'agent-flight-1'],
      ['mongo', 'embedded-mongo'],
      ['redis', `redis:${new URL(exports['REDIS_URL'] ?? 'redis://x:1').port}`],
    ] as const) {
      await tripsInFlight(batch);
      await killAndSeeRestart(victim);
    }
  }, 400_000);

  it('resumes every order after kill -9 of sas up and every process under it, on the same data folder', async () => {
    await tripsInFlight('all');
    const children = [...recorded().values()];
    const killedAt = Date.now();
    await (up as ManagedProcess).kill('SIGKILL');
    for (const pid of children) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    up = await upAndRunning('sas-up-2');
    progress(`sas up and ${children.length} processes killed; a new sas up on the folder was up in ${Date.now() - killedAt} ms`);
    expect(up.lines.map((l) => l.text).join('\n')).toMatch(/state in .*data \(resuming what is kept there\)/);
    await setLatency(0);
    // Every order the first sas up took is still there, and finishes.
    await allOrdersFinish();
  }, 400_000);

  it('stops what a sas up killed alone left running, before the next one on the folder starts its own, and resumes', async () => {
    await setLatency(300);
    await tripsInFlight('orphaned');
    const children = [...recorded().values()];
    // Only sas up dies: its processes, each in a process group of its own, run on.
    await (up as ManagedProcess).kill('SIGKILL');
    expect(children.filter(processAlive)).toEqual(children);
    up = await upAndRunning('sas-up-3');
    const output = up.lines.map((l) => l.text).join('\n');
    expect(output).toContain(`sas up: ${children.length} processes of an earlier sas up on this folder are still running (it was killed without stopping them): stopping them first ...`);
    expect(children.filter(processAlive)).toEqual([]);
    await setLatency(0);
    await allOrdersFinish();
  }, 400_000);

  it('leaves no effect doubled and none un-undone: every Processed trip booked and charged once, every undone one undone', async () => {
    const docs = await processes(orders);
    expect(docs.map((d) => d.orderId).sort()).toEqual([...orders].sort());
    const ledger = (await remoteGet<{ effects: LedgerEffect[] }>('/ledger')).effects.filter((e) => orders.includes(e.orderId));
    const undoOf = tripUndoPairs(workflow);
    expect(repeatedEffects(ledger)).toEqual([]);
    const undone = docs.filter((d) => d.state !== 'Processed').map((d) => d.orderId);
    // Every trip the hotel refused is undone, its flight booking with it (a trip it never reached is Processed).
    expect(undone).toEqual(expect.arrayContaining(REFUSED_BY_HOTEL));
    expect(ledger.filter((e) => REFUSED_BY_HOTEL.includes(e.orderId) && kindOf(e) === 'flight.cancel').length).toBe(REFUSED_BY_HOTEL.length);
    expect(unundoneEffects(ledger, undone, undoOf)).toEqual([]);
    const processed = docs.filter((d) => d.state === 'Processed');
    const missing = processed.flatMap((d) => {
      const kinds = ledger.filter((e) => e.orderId === d.orderId).map(kindOf);
      const wanted = d.payload['dayTrip'] === true ? ['flight.book', 'payment.charge'] : ['flight.book', 'hotel.book', 'payment.charge'];
      return wanted.filter((k) => kinds.filter((x) => x === k).length !== 1).map((k) => `order ${d.orderId}: ${k} took effect ${kinds.filter((x) => x === k).length} times`);
    });
    expect(missing).toEqual([]);
    progress(`${processed.length} of ${docs.length} orders Processed, ${undone.length} undone`);
  }, 60_000);

  it('stops cleanly on Ctrl-C: roles first, stores last, exit 0, no shutdown timed out', async () => {
    const upProc = up as ManagedProcess;
    await upProc.kill('SIGINT');
    expect(upProc.exitCode).toBe(0);
    const logs = readdirLogs();
    expect(logs.filter((l) => l.includes('shutdown timed out'))).toEqual([]);
    expect(upProc.lines.map((l) => l.text).join('\n')).toContain('sas up: stopped. State kept in');
  }, 60_000);
});

/** Every line of the service logs in the data folder. */
function readdirLogs(): string[] {
  const dir = join(app, 'data', 'logs');
  return run('sh', ['-c', `cat ${dir}/*.log`], app, 10_000).stdout.split('\n');
}
