import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  findWorkspaceRoot,
  resolveMongo,
  serviceScript,
  ServiceProcess,
  silentLog,
  startRedis,
  startRedisCluster,
  type LogFn,
  type MongoTarget,
  type RedisCluster,
  type RedisServer,
  type ResolveMongoOptions,
} from '@sas/stack';
import { MongoClient } from 'mongodb';
import { uniqueName } from './unique-name';
import { withDatabase } from './with-database';
import { waitFor, type WaitForOptions } from './wait-for';

/**
 * Which Redis a stack runs: one `redis-server` (`single`), or a real Redis Cluster of 3 masters
 * with a replica each (`cluster`), whose REDIS_URL is a `redis-cluster://` URL. End-to-end tests
 * that must hold on both are parametrized over {@link REDIS_TOPOLOGIES}.
 */
export type RedisTopology = 'single' | 'cluster';

/** Both topologies, for `describe.each`. */
export const REDIS_TOPOLOGIES: readonly RedisTopology[] = ['single', 'cluster'];

/** Options of {@link TestStack.start}. */
export interface TestStackOptions {
  /** Names the log directory and prefixes the queue prefix and database name: use the test file's name. */
  name: string;
  /** LOG_LEVEL given to services. @default 'info' */
  logLevel?: string;
  /** Start Redis with an append-only file, for tests that crash Redis and expect data to survive. @default false */
  redisAppendOnly?: boolean;
  /** One Redis or a Redis Cluster (3 masters, 1 replica each). @default 'single' */
  redisTopology?: RedisTopology;
  /** How MongoDB is resolved (`ttlIntervalMs` for TTL tests, `env`); `log` comes from this object. */
  mongo?: Omit<ResolveMongoOptions, 'log'>;
  /** Workspace whose `services/<name>/dist/main.js` are spawned. @default findWorkspaceRoot() */
  root?: string;
  /** Where the stack reports what it starts and unexpected exits. @default silent */
  log?: LogFn;
}

/**
 * Everything an end-to-end test needs, private to that test: its own Redis, a MongoDB, a unique
 * queue prefix and database, and our services as real processes. `stop()` tears it all down.
 * Each spawned service logs to `<os tmp>/sas-test-logs/<name>/<service>-<n>.log`; failures from
 * {@link TestStack.waitFor} list those files, and {@link TestStack.describeLogs} prints them.
 *
 * @example
 * ```ts
 * let stack: TestStack;
 * beforeAll(async () => { stack = await TestStack.start({ name: 'crash-recovery' }); });
 * afterAll(() => stack.stop());
 * it('resumes the order after the scheduler crashes', async () => {
 *   const scheduler = await stack.spawn('scheduler');
 *   await scheduler.kill();
 * });
 * ```
 */
export class TestStack {
  /** Directory holding the service log files of this stack. */
  readonly logDir: string;
  /** Environment every spawned service gets: REDIS_URL, MONGO_URL, MONGO_DB, QUEUE_PREFIX, LOG_LEVEL. */
  readonly env: Readonly<Record<string, string>>;
  private readonly processes: ServiceProcess[] = [];
  private readonly instanceCounts = new Map<string, number>();
  private client: Promise<MongoClient> | undefined;
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly name: string,
    private readonly redisTarget: RedisServer | RedisCluster,
    readonly mongo: MongoTarget,
    readonly queuePrefix: string,
    readonly dbName: string,
    private readonly root: string,
    private readonly log: LogFn,
    logLevel: string,
  ) {
    this.logDir = join(tmpdir(), 'sas-test-logs', name.replace(/[^A-Za-z0-9_.-]/g, '_'));
    this.env = {
      REDIS_URL: redisTarget.url,
      MONGO_URL: mongo.url,
      MONGO_DB: dbName,
      QUEUE_PREFIX: queuePrefix,
      LOG_LEVEL: logLevel,
    };
  }

  /** Starts Redis and resolves MongoDB; logs of an earlier run of the same name are removed. */
  static async start(options: TestStackOptions): Promise<TestStack> {
    const log = options.log ?? silentLog;
    const root = options.root ?? findWorkspaceRoot();
    const redis =
      options.redisTopology === 'cluster'
        ? await startRedisCluster({ masters: 3, replicasPerMaster: 1, log })
        : await startRedis({ appendOnly: options.redisAppendOnly, log });
    let mongo: MongoTarget;
    try {
      mongo = await resolveMongo({ ...options.mongo, log });
    } catch (error) {
      await redis.stop();
      throw error;
    }
    const stack = new TestStack(
      options.name,
      redis,
      mongo,
      uniqueName(options.name),
      uniqueName(options.name),
      root,
      log,
      options.logLevel ?? 'info',
    );
    rmSync(stack.logDir, { recursive: true, force: true });
    return stack;
  }

  /** The private Redis, for chaos: `kill('SIGKILL')`, `restart()`. Throws on a cluster stack (see {@link redisCluster}). */
  get redis(): RedisServer {
    if ('killMaster' in this.redisTarget) {
      throw new Error(`TestStack '${this.name}' runs a Redis Cluster; use stack.redisCluster (killMaster) instead of stack.redis`);
    }
    return this.redisTarget;
  }

  /** The private Redis Cluster of a `redisTopology: 'cluster'` stack, for failovers; undefined on a single Redis. */
  get redisCluster(): RedisCluster | undefined {
    return 'killMaster' in this.redisTarget ? this.redisTarget : undefined;
  }

  /** Every log file written so far, one per spawned process. */
  get logFiles(): string[] {
    return this.processes.map((p) => join(this.logDir, `${p.name}.log`));
  }

  /** Every process spawned so far (stopped ones included). */
  get services(): readonly ServiceProcess[] {
    return this.processes;
  }

  /**
   * Starts `services/<service>/dist/main.js` as a real process with the stack's env (plus
   * `extraEnv`). Named `<service>[-<instanceSuffix>]-<n>`, n counting from 1 per name.
   */
  async spawn(
    service: string,
    extraEnv: NodeJS.ProcessEnv = {},
    instanceSuffix?: string,
  ): Promise<ServiceProcess> {
    if (this.stopping) throw new Error(`TestStack '${this.name}' is stopped; start a new one`);
    const label = instanceSuffix ? `${service}-${instanceSuffix}` : service;
    const n = (this.instanceCounts.get(label) ?? 0) + 1;
    this.instanceCounts.set(label, n);
    const name = `${label}-${n}`;
    const child = new ServiceProcess({
      name,
      script: serviceScript(this.root, service),
      env: { ...this.env, ...extraEnv },
      logFile: join(this.logDir, `${name}.log`),
      log: this.log,
    });
    this.processes.push(child);
    await child.start();
    return child;
  }

  /** A connected client whose default database (`client.db()`) is the stack's; closed by `stop()`. */
  mongoClient(): Promise<MongoClient> {
    if (this.stopping)
      return Promise.reject(new Error(`TestStack '${this.name}' is stopped; start a new one`));
    this.client ??= MongoClient.connect(withDatabase(this.mongo.url, this.dbName));
    return this.client;
  }

  /** {@link waitFor} that lists the stack's log files when it times out. */
  waitFor<T>(probe: () => T | Promise<T>, options: WaitForOptions): Promise<NonNullable<T>> {
    return waitFor(probe, { ...options, diagnostics: () => this.describeLogs() });
  }

  /** Where to read what the services said, for failure messages. */
  describeLogs(): string {
    const files = this.logFiles;
    return files.length === 0
      ? `TestStack '${this.name}': no services spawned`
      : `TestStack '${this.name}' service logs:\n${files.map((f) => `  ${f}`).join('\n')}`;
  }

  /**
   * Stops every spawned process, then Redis, then MongoDB; each group with `Promise.allSettled`,
   * so one failure does not leave the rest running. Idempotent; never throws.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    const report = (what: string, results: PromiseSettledResult<unknown>[]): void => {
      for (const result of results) {
        if (result.status === 'rejected')
          this.log(`TestStack '${this.name}': stopping ${what} failed`, { error: String(result.reason) });
      }
    };
    report('services', await Promise.allSettled(this.processes.map((p) => p.stop())));
    report('MongoDB client', await Promise.allSettled([this.closeClient()]));
    report('Redis', await Promise.allSettled([this.redisTarget.stop()]));
    report('MongoDB', await Promise.allSettled([this.mongo.stop()]));
  }

  private async closeClient(): Promise<void> {
    // On a shared external MongoDB the test database would outlive the test; drop it.
    if (this.mongo.kind === 'external') {
      this.client ??= MongoClient.connect(withDatabase(this.mongo.url, this.dbName), {
        serverSelectionTimeoutMS: 10_000,
      });
    }
    if (!this.client) return;
    const client = await this.client;
    try {
      if (this.mongo.kind === 'external') await client.db().dropDatabase();
    } finally {
      await client.close();
    }
  }
}
