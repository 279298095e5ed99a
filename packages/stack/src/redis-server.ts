import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLog, type LogFn } from './log-fn';
import { ManagedProcess, type ManagedProcessOptions } from './managed-process';
import { pingRedis } from './ping-redis';
import { rawRedisCommand } from './raw-redis-command';

/** Options of {@link startRedis}. */
export interface RedisServerOptions {
  /** @default a free port picked by the OS */
  port?: number;
  /** Working directory (append-only file lives here). @default a new temporary directory, removed by `stop()` */
  dir?: string;
  /** `true` → `--appendonly yes --appendfsync everysec`, so data survives `kill('SIGKILL')` + `restart()`. @default false */
  appendOnly?: boolean;
  log?: LogFn;
  /** How long to wait for `+PONG` after spawning. @default 10000 */
  readyTimeoutMs?: number;
  /** More `redis-server` arguments, e.g. a cluster node's (see `startRedisCluster`). @default none */
  extraArgs?: readonly string[];
  /** Its own process group, so a terminal's Ctrl-C reaches only the launcher (`sas up` stops Redis last). @default false */
  ownProcessGroup?: boolean;
  /** Told of every exit of the server's process. */
  onExit?: ManagedProcessOptions['onExit'];
}

/** A private `redis-server` started by {@link startRedis}. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** OS process id of the current run; `undefined` while stopped. */
  readonly pid: number | undefined;
  /** The working directory the server runs in. */
  readonly dir: string;
  /** The server's process (its output, how it exited). */
  readonly process: ManagedProcess;
  /** SIGTERM, then SIGKILL after a grace period; removes the temporary directory it created. */
  stop(): Promise<void>;
  /** Sends `signal` (default SIGKILL, a crash) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts again on the same port and directory (stopping first if running) and waits for `+PONG`. */
  restart(): Promise<void>;
}

/** Error text when `redis-server` is missing; says how to install it or how to avoid it. */
export const REDIS_NOT_FOUND_MESSAGE =
  'redis-server not found on PATH. Install it (Debian: apt-get install redis-server) or set REDIS_URL to use an existing Redis.';

/**
 * The process behind {@link RedisServer}: owns the port and directory so chaos tests can crash
 * and restart Redis at the same address that every service was given.
 */
export class RedisServerProcess implements RedisServer {
  readonly url: string;
  readonly process: ManagedProcess;
  private readonly ownsDir: boolean;

  constructor(
    readonly port: number,
    readonly dir: string,
    private readonly options: RedisServerOptions,
  ) {
    this.url = `redis://127.0.0.1:${port}`;
    this.ownsDir = options.dir === undefined;
    const persistence = options.appendOnly
      ? ['--appendonly', 'yes', '--appendfsync', 'everysec']
      : ['--appendonly', 'no'];
    this.process = new ManagedProcess({
      name: `redis:${port}`,
      command: 'redis-server',
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, ...(options.extraArgs ?? [])],
      log: options.log ?? silentLog,
      maxLines: 200,
      ownProcessGroup: options.ownProcessGroup,
      onExit: options.onExit,
    });
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Output lines of the server (for diagnosing a failed start). */
  get lines(): ManagedProcess['lines'] {
    return this.process.lines;
  }

  /** Spawns the server and resolves once it answers `+PONG`. */
  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    try {
      await this.process.start();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        throw new Error(REDIS_NOT_FOUND_MESSAGE, { cause: error });
      throw error;
    }
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 10_000);
    for (;;) {
      if (!this.process.running) {
        await this.process.whenExited();
        throw new Error(
          `redis-server on port ${this.port} exited before answering PING (code ${String(this.process.exitCode)}). ` +
            `Its last output:\n${this.process.describeLastLines(20)}`,
        );
      }
      if ((await pingRedis(this.port, 500)) && (await this.answeringIsOurs())) return;
      if (Date.now() > deadline) {
        await this.process.stop(1000);
        throw new Error(
          `redis-server on port ${this.port} did not answer PING within ${this.options.readyTimeoutMs ?? 10_000} ms. ` +
            `Its last output:\n${this.process.describeLastLines(20)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async stop(): Promise<void> {
    await this.process.stop(5000);
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.process.kill(signal);
  }

  async restart(): Promise<void> {
    await this.process.stop(5000);
    await this.start();
  }

  /**
   * Whether the server that answered is the one we spawned: another process may hold the port
   * (a chosen `port` in use), and its PONG must not pass for ours.
   */
  private async answeringIsOurs(): Promise<boolean> {
    const info = await rawRedisCommand(this.port, 'INFO server', 500);
    return info !== undefined && info.includes(`process_id:${String(this.process.pid)}\r\n`);
  }

  /** Whether the server exited because its port was taken (so a caller may retry on another port). */
  lostPortRace(): boolean {
    return this.process.lines.some((line) => /address already in use/i.test(line.text));
  }
}

/** A new temporary directory for a Redis started without `dir`. */
export function temporaryRedisDir(): string {
  return mkdtempSync(join(tmpdir(), 'sas-redis-'));
}
