import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The ports a `sas up` used, kept so that a restart on the same folder serves at the same URLs when it can. */
export interface UpPorts {
  redis?: number;
  mongo?: number;
  dashboard?: number;
  remoteSim?: number;
}

/** A process `sas up` started, as recorded in the folder: enough to recognise it after `sas up` itself died. */
export interface RecordedChild {
  name: string;
  pid: number;
  /** `/proc/<pid>/cmdline` when it was recorded: a pid the OS has given to another program does not match. */
  cmdline: string;
  /** Stopped in this order when found orphaned: 0 the roles and agents, 1 the dashboard and remote-sim, 2 the stores. */
  tier: number;
}

/** What `sas-up.json` holds. */
interface UpState {
  pid: number;
  startedAt: string;
  ports: UpPorts;
  children: RecordedChild[];
}

const LOCK = 'sas-up.lock';
const STATE = 'sas-up.json';

/** Thrown when another `sas up` is running on the same data folder. */
export class DataDirBusy extends Error {}

/**
 * Whether a process with this pid runs (ours or not). A zombie does not: an orphan that was killed
 * stays one until its new parent reaps it, which a container's first process may never do.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // The state is the field after the command name in parentheses: `pid (comm) S ...`.
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc (not Linux): the signal said it exists
  }
}

/** `/proc/<pid>/cmdline` with NULs as spaces, or undefined when the process is gone (or this is not Linux). */
export function cmdlineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '').join(' ');
  } catch {
    return undefined;
  }
}

/**
 * The folder where `sas up` keeps its state (decision 133): `redis/` (Redis's append-only file),
 * `mongo/` (the embedded MongoDB's SQLite file), `logs/`, and its own records: `sas-up.lock`
 * (one `sas up` per folder) and `sas-up.json` (the ports it used and the processes it started).
 * A `sas up` killed with kill -9 leaves its children running; the next one on the folder finds
 * them there and stops them before it starts its own, so two servers never share one data file.
 */
export class DataDir {
  readonly redisDir: string;
  readonly mongoDir: string;
  readonly logDir: string;
  private readonly lockFile: string;
  private readonly stateFile: string;
  private state: UpState;

  private constructor(
    readonly path: string,
    readonly previous: UpState | undefined,
  ) {
    this.redisDir = join(path, 'redis');
    this.mongoDir = join(path, 'mongo');
    this.logDir = join(path, 'logs');
    this.lockFile = join(path, LOCK);
    this.stateFile = join(path, STATE);
    this.state = { pid: process.pid, startedAt: new Date().toISOString(), ports: previous?.ports ?? {}, children: [] };
  }

  /**
   * Creates the folder if needed and takes it for this process: refuses with {@link DataDirBusy}
   * when a live `sas up` holds it; takes over a lock whose process is gone.
   */
  static open(path: string): DataDir {
    const dir = resolve(path);
    mkdirSync(dir, { recursive: true });
    takeLock(join(dir, LOCK), dir);
    let previous: UpState | undefined;
    try {
      previous = JSON.parse(readFileSync(join(dir, STATE), 'utf8')) as UpState;
    } catch {
      previous = undefined; // a new folder, or a record cut short by a crash: nothing to go on
    }
    const data = new DataDir(dir, previous);
    for (const sub of [data.redisDir, data.mongoDir, data.logDir]) mkdirSync(sub, { recursive: true });
    return data;
  }

  /** Whether the folder holds state from an earlier run (Redis's AOF or the store's file). */
  get hasState(): boolean {
    return existsSync(join(this.redisDir, 'appendonlydir')) || existsSync(join(this.mongoDir, 'embedded-mongo.sqlite'));
  }

  /** The children an earlier `sas up` recorded that still run the same command line: orphans of a `sas up` that died. */
  orphans(): RecordedChild[] {
    return (this.previous?.children ?? []).filter((c) => c.pid !== process.pid && alive(c.pid) && cmdlineOf(c.pid) === c.cmdline);
  }

  /** Keeps the ports for the next run on this folder. */
  recordPorts(ports: UpPorts): void {
    this.state.ports = { ...this.state.ports, ...ports };
    this.write();
  }

  /** Records the processes running now (called after every start and restart: a restart has a new pid). */
  recordChildren(children: readonly Omit<RecordedChild, 'cmdline'>[]): void {
    this.state.children = children.flatMap((c) => {
      const cmdline = cmdlineOf(c.pid);
      return cmdline === undefined ? [] : [{ ...c, cmdline }];
    });
    this.write();
  }

  /** Gives the folder up (on a clean stop): the children are gone, the lock is released. */
  release(): void {
    this.state.children = [];
    this.write();
    rmSync(this.lockFile, { force: true });
  }

  /** Written whole to a temporary file, then renamed over: a crash never leaves half a record. */
  private write(): void {
    const temporary = `${this.stateFile}.${process.pid}`;
    writeFileSync(temporary, `${JSON.stringify(this.state, null, 2)}\n`);
    renameSync(temporary, this.stateFile);
  }
}

/** Creates the lock file exclusively; a lock left by a dead process is taken over once. */
function takeLock(lockFile: string, dir: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(readFileSync(lockFile, 'utf8').trim());
    // A live pid whose command line is not a sas up's is another program that got the number after a reboot.
    const holderIsUp = Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder) && /\bup\b/.test(cmdlineOf(holder) ?? ' up ');
    if (holderIsUp) {
      throw new DataDirBusy(
        `Another sas up (pid ${holder}) is running on ${dir}. Stop it first (Ctrl-C in its terminal, or kill ${holder}), or give this one another --data-dir.`,
      );
    }
    // The process that held it is gone (a kill -9 or a power cut): the folder is free.
    rmSync(lockFile, { force: true });
  }
  throw new DataDirBusy(`Another sas up took ${dir} at the same moment. Run sas up again once it has stopped, or give this one another --data-dir.`);
}

/** How long an orphan gets to stop on SIGTERM before SIGKILL: a service's own shutdown bound is 10 s. */
const ORPHAN_GRACE_MS = 12_000;

/**
 * Stops what an earlier `sas up` left running (see {@link DataDir.orphans}), tier by tier as a
 * clean stop would: roles and agents, then the dashboard and remote-sim, then the stores; SIGTERM to
 * each one's process group, SIGKILL to what is left after the grace period.
 */
export async function stopOrphans(orphans: readonly RecordedChild[], sleep: (ms: number) => Promise<void>): Promise<void> {
  for (const tier of [0, 1, 2]) {
    const these = orphans.filter((o) => o.tier === tier);
    for (const o of these) signalGroup(o.pid, 'SIGTERM');
    const deadline = Date.now() + ORPHAN_GRACE_MS;
    while (these.some((o) => alive(o.pid)) && Date.now() < deadline) await sleep(100);
    for (const o of these.filter((x) => alive(x.pid))) signalGroup(o.pid, 'SIGKILL');
    // SIGKILL cannot be refused; the bound only keeps a stuck kernel from hanging sas up for good.
    const killed = Date.now() + ORPHAN_GRACE_MS;
    while (these.some((o) => alive(o.pid)) && Date.now() < killed) await sleep(50);
  }
}

/** Signals a child's process group (`sas up` starts each in its own), else the process alone. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return;
    } catch {
      // No such group (or process): try the process itself, else it is gone already.
    }
  }
}
