import type { ProcessDocument } from '@sas/contracts';
import { CollectionNames, connectStore, type StoreConnection } from '@sas/store';
import { describeMongo } from './describe-mongo';
import { renderStateCounts, type StateCounts } from './state-counts';
import { UpRefused, startUp, type UpSystem } from './start-up';
import type { UpOptions } from './up-options';

/** Where `sas up` writes: `out` for what a user reads, `err` for a refusal or a service that died. */
export interface UpOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Rewrites the live line in place (a terminal); `undefined`: print the counts as a new line when they change. */
  live?: (line: string) => void;
}

/** How often the live line reads the counts. */
const COUNTS_INTERVAL_MS = 1000;

/**
 * How long the services get to finish the shutdown Ctrl-C started in each of them (its bound is
 * 10 s) before they are told to stop again: a second signal makes a service exit at once, which
 * would cut short the core process's closing of its three roles.
 */
const CTRL_C_SHUTDOWN_MS = 12_000;

/**
 * `sas up`: starts the system ({@link startUp}), prints what an application and an agent need, then
 * shows the processes by state until Ctrl-C (exit 0) or until a service dies (reported with its last
 * lines, everything stopped, exit 1: nothing is restarted behind the user's back).
 */
export async function runUp(options: UpOptions, output: UpOutput, signal: Promise<string>): Promise<number> {
  const { out, err } = output;
  let stopping = false;
  let died: (name: string) => void = () => undefined;
  const death = new Promise<string>((resolve) => (died = resolve));
  // Ctrl-C reaches the whole process group: the services exit on their own, which is no news then.
  void signal.then(() => (stopping = true));
  const log = (msg: string, fields?: Record<string, unknown>): void => {
    if (stopping) return;
    if (msg.endsWith(' exited unexpectedly')) {
      const lines = Array.isArray(fields?.['lastLines']) ? (fields['lastLines'] as string[]) : [];
      err(`\n!! ${msg} (exit code ${String(fields?.['code'])}, signal ${String(fields?.['signal'])}). Its last lines:`);
      for (const line of lines.slice(-10)) err(`!!   ${line}`);
      died(String(fields?.['service'] ?? msg));
      return;
    }
    // Which Redis and MongoDB is said once, below, with what it means for the data.
    if (/^(Redis|MongoDB): /.test(msg)) return;
    out(`  ${msg}`);
  };

  out('sas up: checking the workflows and mappings, then starting Redis, MongoDB and the services ...');
  let up: UpSystem;
  try {
    up = await startUp({ ...options, name: 'sas', log });
  } catch (e) {
    if (e instanceof UpRefused) {
      for (const line of e.lines) err(line);
      err('Nothing was started. Fix the file(s) above and run sas up again.');
      return 1;
    }
    throw e;
  }
  let store: StoreConnection | undefined;
  let ctrlC = false;
  try {
    out(`  Redis: ${up.env.REDIS_URL} (${up.redisKind})`);
    out(`  ${describeMongo(up.mongo)}`);
    out(`  ready: ${up.system.all.map((p) => (p.name.startsWith('core-') ? `${p.name} (submission, scheduler, supervisor)` : p.name)).join(', ')}`);
    out(`  logs: ${up.logDir} (one file per service)`);
    out('');
    out('sas is up. Your agents (@sas/agent), your application (@sas/client) and the operator commands (sas status, ...) use:');
    out(`  export REDIS_URL=${up.env.REDIS_URL} QUEUE_PREFIX=${up.env.QUEUE_PREFIX} MONGO_URL='${up.env.MONGO_URL}' MONGO_DB=${up.env.MONGO_DB}`);
    out('  (an application needs only REDIS_URL and QUEUE_PREFIX; agents keep their breaker state in MongoDB)');
    out(`Dashboard (signs you in as operator): ${up.loginUrl}`);
    out('Press Ctrl-C to stop everything.');
    out('');
    store = await connectStore(up.env.MONGO_URL, up.env.MONGO_DB);
    const stopped = await follow(store, output, Promise.race([signal.then((s) => `signal ${s}`), death.then((name) => `died ${name}`)]));
    stopping = true;
    if (stopped.startsWith('died ')) {
      err(`!! ${stopped.slice('died '.length)} died; sas up restarts nothing. Stopping every service. Logs: ${up.logDir}`);
      return 1;
    }
    out(`\nsas up: ${stopped}, stopping every service ...`);
    // A terminal's Ctrl-C reaches the whole process group, so the services are stopping already.
    ctrlC = stopped === 'signal SIGINT';
    return 0;
  } finally {
    stopping = true;
    await store?.close();
    if (ctrlC) await withinMs(Promise.all(up.system.all.map((p) => p.whenExited())), CTRL_C_SHUTDOWN_MS);
    await up.stop();
    out(`sas up: stopped. Logs: ${up.logDir}`);
  }
}

/** Shows the counts by state until `until` settles; resolves with its reason. */
async function follow(store: StoreConnection, output: UpOutput, until: Promise<string>): Promise<string> {
  let last = '';
  let reason: string | undefined;
  void until.then((r) => (reason = r));
  while (reason === undefined) {
    const line = renderStateCounts(await countByState(store));
    if (output.live) output.live(line);
    else if (line !== last) output.out(line);
    last = line;
    await Promise.race([until, new Promise((r) => setTimeout(r, COUNTS_INTERVAL_MS))]);
  }
  if (output.live) output.out('');
  return reason;
}

async function countByState(store: StoreConnection): Promise<StateCounts> {
  const rows = await store.db
    .collection<ProcessDocument>(CollectionNames.processes)
    .aggregate<{ _id: string; n: number }>([{ $group: { _id: '$state', n: { $sum: 1 } } }])
    .toArray();
  return Object.fromEntries(rows.map((r) => [r._id, r.n]));
}

/** Waits for `promise` or `ms`, whichever comes first. */
async function withinMs(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
