import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { silentLog, type LogFn } from './log-fn';
import { LineWaiters } from './line-waiters';
import { LogFileWriter } from './log-file-writer';
import { formatLines, toOutputLine, type OutputLine } from './output-line';

/** Options of {@link ManagedProcess}. */
export interface ManagedProcessOptions {
  /** Name used in logs and error messages (`scheduler-1`, `redis`). */
  name: string;
  /** Executable to run (absolute path or a name looked up on `PATH`). */
  command: string;
  args?: readonly string[];
  /** Merged over `process.env`. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** When set, every output line is appended to this file (parent directories are created). */
  logFile?: string;
  log?: LogFn;
  /** @default 5000 */
  maxLines?: number;
  /**
   * Runs the process in a process group of its own, and sends every signal to the whole group, as
   * a terminal's Ctrl-C does: a command run through `npx` (npm, a shell, then the command) gets it
   * where it would at a terminal. @default false
   */
  ownProcessGroup?: boolean;
  /**
   * Told of every exit, after it is recorded: how a supervisor (`sas up`) learns that a child died
   * without polling. `expected` is false for a crash (no `stop()`/`kill()` was asked).
   */
  onExit?: (record: ExitRecord, process: ManagedProcess) => void;
}

/** How one run of the process ended. */
export interface ExitRecord {
  readonly run: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** False when the process died without `stop()`/`kill()` being asked: a crash. */
  readonly expected: boolean;
}

/**
 * A child process that tests and the launcher can start, watch, crash and restart. It exists so
 * that services, `redis-server` and the embedded MongoDB are all handled the same way: output is
 * kept line by line (bounded) for assertions and error messages, exits are recorded instead of
 * thrown, and stopping always escalates from SIGTERM to SIGKILL so nothing is left running.
 */
export class ManagedProcess {
  readonly name: string;
  private readonly options: ManagedProcessOptions;
  private readonly log: LogFn;
  private readonly maxLines: number;
  private readonly buffer: OutputLine[] = [];
  private readonly exitRecords: ExitRecord[] = [];
  private readonly waiters = new LineWaiters((description, reason) => this.waitError(description, reason));
  private child: ChildProcess | undefined;
  private exited: Promise<ExitRecord> | undefined;
  private logFile: LogFileWriter | undefined;
  private expectingExit = false;
  private runCount = 0;

  constructor(options: ManagedProcessOptions) {
    if (options.name.length === 0) throw new Error('ManagedProcess needs a non-empty name for its logs');
    this.name = options.name;
    this.options = options;
    this.log = options.log ?? silentLog;
    this.maxLines = options.maxLines ?? 5000;
  }

  /** OS process id of the current run, `undefined` when not running. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Whether a run is in progress (spawned and not yet exited). */
  get running(): boolean {
    return this.child !== undefined;
  }

  /** Exit code of the last finished run; `null` while running, before the first run, or after a signal. */
  get exitCode(): number | null {
    if (this.running) return null;
    return this.exitRecords.at(-1)?.code ?? null;
  }

  /** Signal that ended the last finished run, if any. */
  get exitSignal(): NodeJS.Signals | null {
    if (this.running) return null;
    return this.exitRecords.at(-1)?.signal ?? null;
  }

  /** The last lines written (at most `maxLines`), across runs, oldest first. */
  get lines(): readonly OutputLine[] {
    return this.buffer;
  }

  /** Every finished run, oldest first; a crash shows as `expected: false`. */
  get exits(): readonly ExitRecord[] {
    return this.exitRecords;
  }

  /** The last `count` lines, formatted for an error message. */
  describeLastLines(count = 20): string {
    return formatLines(this.buffer.slice(-count));
  }

  /**
   * Spawns a new run and resolves once the OS has started it. Rejects when the executable cannot
   * be started (for example `ENOENT`: not installed); the error's `code` is kept.
   */
  async start(): Promise<void> {
    if (this.child)
      throw new Error(`${this.name} is already running (pid ${String(this.child.pid)}); stop it first`);
    const run = ++this.runCount;
    this.expectingExit = false;
    const child = spawn(this.options.command, [...(this.options.args ?? [])], {
      env: { ...process.env, ...this.options.env },
      cwd: this.options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: this.options.ownProcessGroup === true,
    });
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        const wrapped = new Error(
          `${this.name}: could not start '${this.options.command}' (${error.code ?? error.message})`,
          { cause: error },
        );
        Object.assign(wrapped, { code: error.code });
        reject(wrapped);
      };
      child.once('error', onError);
      child.once('spawn', () => {
        child.off('error', onError);
        resolve();
      });
    });
    this.child = child;
    const file = this.options.logFile;
    this.logFile = file
      ? new LogFileWriter(file, (error) =>
          this.log(`${this.name}: cannot write log file ${file}`, { error: error.message }),
        )
      : undefined;
    child.on('error', (error) =>
      this.log(`${this.name}: process error`, { service: this.name, error: error.message }),
    );
    this.readLines(child, 'stdout', run);
    this.readLines(child, 'stderr', run);
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        const record = this.recordExit(run, code, signal);
        // Resolve only once the log file has every line, so a caller can read it right after stop().
        const logFile = this.logFile;
        this.logFile = undefined;
        void (logFile?.close() ?? Promise.resolve()).then(() => resolve(record));
      });
    });
  }

  /**
   * Resolves with the first line of the current run matching `predicate` (lines already seen in
   * this run count); rejects when `timeoutMs` passes or the run ends first, naming `description`,
   * the process and its last 20 lines.
   */
  waitForLine(
    predicate: (line: OutputLine) => boolean,
    timeoutMs: number,
    description: string,
  ): Promise<OutputLine> {
    const run = this.runCount;
    let seen: OutputLine | undefined;
    try {
      seen = this.buffer.find((line) => line.run === run && predicate(line));
    } catch (error) {
      return Promise.reject(new Error(`The predicate for ${description} threw`, { cause: error }));
    }
    if (seen) return Promise.resolve(seen);
    if (!this.running && run > 0)
      return Promise.reject(this.waitError(description, 'the process is not running'));
    return this.waiters.wait(run, predicate, timeoutMs, description);
  }

  /** Resolves with how the current run ended (at once with the last record when not running). */
  async whenExited(): Promise<ExitRecord | undefined> {
    if (!this.running || !this.exited) return this.exitRecords.at(-1);
    return this.exited;
  }

  /** Asks the process to exit (SIGTERM) and forces it (SIGKILL) after `graceMs`. Never throws on a dead process. */
  async stop(graceMs = 5000): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) return;
    this.expectingExit = true;
    this.signal(child, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace-over'>((resolve) => {
      timer = setTimeout(() => resolve('grace-over'), graceMs);
    });
    const outcome = await Promise.race([exited, graceOver]);
    clearTimeout(timer);
    if (outcome === 'grace-over') {
      this.log(`${this.name}: did not exit within ${graceMs} ms of SIGTERM; sending SIGKILL`, {
        service: this.name,
      });
      this.signal(child, 'SIGKILL');
      await exited;
    }
  }

  /** Sends `signal` (a crash by default) and waits for the process to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (!child || !exited) return;
    this.expectingExit = true;
    this.signal(child, signal);
    await exited;
  }

  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    if (this.options.ownProcessGroup === true && child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // The group is gone already: the exit is on its way.
      }
    } else {
      child.kill(signal);
    }
  }

  /** Stops the current run (if any) and starts a new one with the same options. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  private readLines(child: ChildProcess, stream: OutputLine['stream'], run: number): void {
    const input = child[stream];
    if (!input) return;
    const reader = createInterface({ input, crlfDelay: Infinity });
    reader.on('line', (text) => this.addLine(toOutputLine(this.name, stream, text, run)));
  }

  private addLine(line: OutputLine): void {
    this.buffer.push(line);
    // Trim in batches so a chatty process does not pay for a shift on every line.
    if (this.buffer.length > this.maxLines + 500) this.buffer.splice(0, this.buffer.length - this.maxLines);
    this.logFile?.write(`${line.stream === 'stderr' ? '[stderr] ' : ''}${line.text}`);
    this.waiters.offer(line);
  }

  private recordExit(run: number, code: number | null, signal: NodeJS.Signals | null): ExitRecord {
    const record: ExitRecord = { run, code, signal, expected: this.expectingExit };
    this.exitRecords.push(record);
    this.child = undefined;
    if (!record.expected) {
      this.log(`${this.name} exited unexpectedly`, {
        service: this.name,
        code,
        signal,
        lastLines: this.buffer.slice(-20).map((line) => line.text),
      });
    }
    this.waiters.failRun(run, `the process exited (code ${String(code)}, signal ${String(signal)})`);
    this.options.onExit?.(record, this);
    return record;
  }

  private waitError(description: string, reason: string): Error {
    return new Error(
      `Gave up waiting for ${description} from ${this.name}: ${reason}. Last lines of ${this.name}:\n` +
        this.describeLastLines(20),
    );
  }
}
