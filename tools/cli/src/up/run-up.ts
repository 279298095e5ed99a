import { relative, resolve } from 'node:path';
import type { ProcessDocument } from '@sas/contracts';
import { CollectionNames, connectStore, type StoreConnection } from '@sas/store';
import { DataDir, DataDirBusy, stopOrphans } from './data-dir';
import { describeMongo } from './describe-mongo';
import { renderStateCounts, type StateCounts } from './state-counts';
import { UpRefused, checkFiles, startUp, type UpSystem } from './start-up';
import { UnservedWatch } from './unserved-watch';
import { UpSupervisor } from './up-supervisor';
import type { UpOptions } from './up-options';

/** Where `sas up` writes: `out` for what a user reads, `err` for a refusal or a service that died. */
export interface UpOutput {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Rewrites the live line in place (a terminal); `undefined`: print the counts as a new line when they change. */
  live?: (line: string) => void;
}

/** Subscribes to the signals that stop `sas up` (SIGINT, SIGTERM), each time one arrives. */
export type OnSignal = (listener: (signal: string) => void) => void;

/** How often the live line reads the counts. */
const COUNTS_INTERVAL_MS = 1000;

/**
 * `sas up`: takes its data folder (refusing one another `sas up` runs on, stopping what a `sas up`
 * killed before left running), starts the system ({@link startUp}), prints what an application and an
 * agent need and every process with its pid and log, then shows the processes by state until Ctrl-C.
 * A child that dies is restarted by the {@link UpSupervisor} while the rest keep running; only a crash
 * loop stops `sas up` (exit 1). Ctrl-C stops the roles first and the stores last (exit 0); a second
 * Ctrl-C kills everything at once, which costs nothing kept in the data folder.
 */
export async function runUp(options: UpOptions, output: UpOutput, onSignal: OnSignal): Promise<number> {
  const { out, err } = output;
  let stopping = false;
  let stop: (reason: string) => void = () => undefined;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  let up: UpSystem | undefined;
  let signals = 0;
  onSignal((signal) => {
    signals += 1;
    if (signals === 1) {
      stop(`signal ${signal}`);
      return;
    }
    err(`\nsas up: ${signal} again: killing every process now (SIGKILL). The data folder keeps what was acknowledged; the next sas up resumes from it.`);
    void up?.kill();
  });
  const log = (msg: string, fields?: Record<string, unknown>): void => {
    // A death is the supervisor's to report; which Redis and MongoDB is said once, below.
    if (stopping || msg.endsWith(' exited unexpectedly') || /^(Redis|MongoDB): /.test(msg)) return;
    out(`  ${msg}${fields?.['error'] === undefined ? '' : `: ${String(fields['error'])}`}`);
  };

  // Refused files start nothing, not even the data folder (startUp checks them again, for the demo).
  try {
    checkFiles(options.workflowsFile === undefined ? undefined : resolve(options.workflowsFile), options.agents);
  } catch (e) {
    if (!(e instanceof UpRefused)) throw e;
    for (const line of e.lines) err(line);
    err('Nothing was started. Fix the file(s) above and run sas up again.');
    return 1;
  }
  let data: DataDir | undefined;
  if (options.dataDir !== undefined) {
    try {
      data = DataDir.open(options.dataDir);
    } catch (e) {
      if (!(e instanceof DataDirBusy)) throw e;
      err(e.message);
      return 1;
    }
    const orphans = data.orphans();
    if (orphans.length > 0) {
      out(`sas up: ${orphans.length} processes of an earlier sas up on this folder are still running (it was killed without stopping them): stopping them first ...`);
      await stopOrphans(orphans, (ms) => new Promise((r) => setTimeout(r, ms)));
    }
    out(`sas up: state in ${data.path} (${data.hasState ? 'resuming what is kept there' : 'a new folder'}): Redis's append-only file, the embedded MongoDB's file and the logs. A restart on this folder resumes every order.`);
  } else {
    out('sas up: --in-memory: nothing is kept; every order and job is gone when sas up stops.');
  }

  const supervisor = new UpSupervisor({
    report: (line) => err(line),
    crashLoop: (message) => stop(`crash-loop ${message}`),
    restarted: (name) => {
      data?.recordChildren(up?.recordable() ?? []);
      const store = up?.children().find((c) => c.name === name && c.tier >= 2);
      if (data === undefined && store !== undefined) err(`!! ${name} runs in memory (--in-memory): it came back empty, and what it held is gone. Without --in-memory sas up keeps it on disk.`);
    },
    logFileOf: (name) => up?.children().find((c) => c.name === name)?.logFile,
  });

  out('sas up: checking the workflows and mappings, then starting Redis, MongoDB and the services ...');
  const startedAt = Date.now();
  try {
    up = await startUp({ ...options, dataDir: data, name: 'sas', log, onExit: (record, proc, restart) => supervisor.onExit(record, proc, restart) });
  } catch (e) {
    supervisor.stop();
    data?.release();
    if (e instanceof UpRefused) {
      for (const line of e.lines) err(line);
      err('Nothing was started. Fix the file(s) above and run sas up again.');
      return 1;
    }
    throw e;
  }
  data?.recordChildren(up.recordable());
  let store: StoreConnection | undefined;
  let exitCode = 0;
  try {
    out(`  Redis: ${up.env.REDIS_URL} (${up.redisKind})`);
    out(`  ${describeMongo(up.mongo)}`);
    out(`  ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s:`);
    for (const child of up.children()) {
      const what = child.name.startsWith('core-') ? ' (submission, scheduler, supervisor)' : '';
      out(`    ${child.name}${what}  pid ${String(child.process.pid)}${child.logFile ? `  log ${relativeOrAbsolute(child.logFile)}` : ''}`);
    }
    out('');
    out('sas is up. Your agents (@sas/agent), your application (@sas/client) and the operator commands (sas status, ...) use:');
    out(`  export REDIS_URL=${up.env.REDIS_URL} QUEUE_PREFIX=${up.env.QUEUE_PREFIX} MONGO_URL='${up.env.MONGO_URL}' MONGO_DB=${up.env.MONGO_DB}`);
    out('  (an application needs only REDIS_URL and QUEUE_PREFIX; agents keep their breaker state in MongoDB)');
    out(`Dashboard (signs you in as operator): ${up.loginUrl}`);
    out('A process that dies is restarted; the others keep running. Press Ctrl-C to stop everything.');
    out('');
    store = await connectStore(up.env.MONGO_URL, up.env.MONGO_DB);
    const watch = new UnservedWatch(store, options.workflowsFile === undefined ? undefined : resolve(options.workflowsFile), out);
    await watch.check();
    const reason = await follow(store, output, stopped, () => watch.check());
    if (reason.startsWith('crash-loop ')) {
      err(`\n!! ${reason.slice('crash-loop '.length)}`);
      exitCode = 1;
    } else out(`\nsas up: ${reason}: stopping the roles and agents, then the dashboard, then MongoDB and Redis ...`);
    return exitCode;
  } finally {
    stopping = true;
    supervisor.stop();
    await store?.close().catch(() => undefined);
    await up.stop();
    data?.release();
    out(`sas up: stopped.${data ? ` State kept in ${data.path}; sas up there resumes it.` : ''} Logs: ${up.logDir}`);
  }
}

function relativeOrAbsolute(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

/** How many count intervals between two live checks of the agents. */
const LIVE_CHECK_EVERY = 10;

/**
 * Shows the counts by state until `until` settles, and runs `everyFewBeats` now and then; resolves
 * with the reason. A store that does not answer (MongoDB restarting) skips a beat.
 */
async function follow(store: StoreConnection, output: UpOutput, until: Promise<string>, everyFewBeats: () => Promise<void>): Promise<string> {
  let last = '';
  let reason: string | undefined;
  let beat = 0;
  void until.then((r) => (reason = r));
  while (reason === undefined) {
    if (++beat % LIVE_CHECK_EVERY === 0) await everyFewBeats();
    const counts = await withinMs(countByState(store), COUNTS_INTERVAL_MS * 3);
    if (counts !== undefined) {
      const line = renderStateCounts(counts);
      if (output.live) output.live(line);
      else if (line !== last) output.out(line);
      last = line;
    }
    await Promise.race([until, new Promise((r) => setTimeout(r, COUNTS_INTERVAL_MS))]);
  }
  if (output.live) output.out('');
  return reason;
}

async function countByState(store: StoreConnection): Promise<StateCounts> {
  const rows = await store.db
    .collection<ProcessDocument>(CollectionNames.processes)
    .aggregate<{ _id: string; n: number }>([{ $group: { _id: '$state', n: { $sum: 1 } } }], { maxTimeMS: COUNTS_INTERVAL_MS * 2 })
    .toArray();
  return Object.fromEntries(rows.map((r) => [r._id, r.n]));
}

/** `promise`'s value, or undefined when it fails or `ms` passes first. */
async function withinMs<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([promise.catch(() => undefined), new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  clearTimeout(timer);
  return result;
}
