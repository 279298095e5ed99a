import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readMappingFile } from '@sas/http-agent';
import { LocalSystem, freePort, resolveMongo, startRedis, type ExitRecord, type LogFn, type ManagedProcess, type MongoTarget, type RedisServer } from '@sas/stack';
import { workflowAgents, type WorkflowDefinition } from '@sas/workflow';
import { checkWorkflows } from '../check-workflows';
import type { DataDir, RecordedChild } from './data-dir';
import { coreScript, roleScript } from './role-scripts';
import type { UpAgent } from './up-options';

/** Told of every exit of every process `startUp` started, with how to start that one again. */
export type UpExitHook = (record: ExitRecord, proc: ManagedProcess, restart: () => Promise<void>) => void;

/** Options of {@link startUp}. */
export interface StartUpOptions {
  /** Checked before anything starts; given to submission, schedulers and supervisors as WORKFLOWS_FILE. */
  workflowsFile?: string;
  /** One HTTP agent each, with its mapping (checked before anything starts) and its own environment. */
  agents: readonly UpAgent[];
  /** The demo: remote-sim and the built-in agents (inventory, payment, shipping) calling it. */
  builtInAgents?: boolean;
  schedulers: number;
  supervisors: number;
  /**
   * Submission, the first scheduler and the first supervisor in one process (`core-1`, see
   * core-main), and the built-in agents in one process of their own (`AGENT=inventory+payment+shipping`);
   * the other schedulers and supervisors, each --agent and the dashboard each in its own.
   * @default false: every service its own process, as in production
   */
  sharedCore?: boolean;
  /** 0: the port of the last run on the data folder when it is free, else any free one. */
  dashboardPort: number;
  /** Where the logs go. @default the data folder's `logs/`, else a new folder under the temp dir */
  logDir?: string;
  /**
   * The data folder (opened, and so locked, by the caller): the private Redis runs append-only in
   * it, the embedded MongoDB keeps its file in it. @default none: a throw-away run, all in memory
   */
  dataDir?: DataDir;
  /** MONGO_DB and QUEUE_PREFIX, unless the environment sets them. */
  name: string;
  /** Progress lines and unexpected exits of services (`<name> exited unexpectedly`, with its last lines). */
  log: LogFn;
  /**
   * Every process (services, the private Redis, the embedded MongoDB) in a process group of its
   * own and its exits reported here, so that `sas up` restarts what dies and alone decides the
   * order things stop in. @default none: the processes share the caller's group
   */
  onExit?: UpExitHook;
  /** Where REDIS_URL, MONGO_URL, MONGO_DB and QUEUE_PREFIX are read. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/** A process `startUp` started, for the console, the data folder's record and the order of stopping. */
export interface UpChild {
  name: string;
  process: ManagedProcess;
  /** Stopped in this order: 0 the roles and agents, 1 the dashboard and remote-sim, 2 MongoDB, 3 Redis. */
  tier: number;
  /** Its log file, when it has one of its own. */
  logFile?: string;
}

/** A running system that {@link startUp} started; `stop()` ends every process it started. */
export interface UpSystem {
  /** What the services got: REDIS_URL, MONGO_URL, MONGO_DB, QUEUE_PREFIX. */
  env: { REDIS_URL: string; MONGO_URL: string; MONGO_DB: string; QUEUE_PREFIX: string };
  /** Which Redis and MongoDB, in words (`private redis-server`, `embedded (in memory)`, ...). */
  redisKind: string;
  mongo: MongoTarget;
  logDir: string;
  /** The dashboard's sign-in link (signs in as operator with a token made for this run). */
  loginUrl: string;
  dashboardUrl: string;
  system: LocalSystem;
  /** Every process started, services first, the stores last. */
  children(): UpChild[];
  /** The running children as the data folder records them. */
  recordable(): Omit<RecordedChild, 'cmdline'>[];
  /** Stops in dependency order: the roles and agents (each its graceful shutdown), the dashboard and remote-sim, MongoDB, Redis. */
  stop(): Promise<void>;
  /** Kills every process at once (SIGKILL): a second Ctrl-C. */
  kill(): Promise<void>;
}

/**
 * Thrown when a workflows or mapping file is refused before anything starts: `lines` say what is
 * wrong in each, as `sas workflows check` would print them.
 */
export class UpRefused extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'));
  }
}

/** How long a role gets to finish its shutdown (its own bound is 10 s) before SIGKILL. */
const ROLE_GRACE_MS = 15_000;

/**
 * `sas up` and the demo: checks the workflows and mapping files, then starts Redis (REDIS_URL, else
 * a private redis-server, append-only in the data folder), MongoDB (MONGO_URL, else as
 * {@link resolveMongo} finds one; on the data folder the embedded server keeps its file there), and
 * every service as its own process from the installed service packages (or, with `sharedCore`, the
 * core roles together in one), waiting for each one's ready line.
 */
export async function startUp(options: StartUpOptions): Promise<UpSystem> {
  const env = options.env ?? process.env;
  const workflowsFile = options.workflowsFile === undefined ? undefined : resolve(options.workflowsFile);
  const declared = checkFiles(workflowsFile, options.agents);
  const data = options.dataDir;
  const logDir = options.logDir ?? data?.logDir ?? join(tmpdir(), 'sas-up', `${options.name}-${randomBytes(3).toString('hex')}`);
  mkdirSync(logDir, { recursive: true });
  const hook = options.onExit;
  // The same ports as the last run on this folder where they are free: an application's REDIS_URL and a bookmarked dashboard keep working.
  const before = data?.previous?.ports ?? {};

  let redis: RedisServer | undefined;
  let mongo: MongoTarget | undefined;
  let system: LocalSystem | undefined;
  let resolveSystem: (s: LocalSystem) => void = () => undefined;
  const systemStarted = new Promise<LocalSystem>((r) => (resolveSystem = r));
  const children = (): UpChild[] => [
    ...(system?.all ?? []).map((p) => ({ name: p.name, process: p as ManagedProcess, tier: /^(dashboard|remote-sim)-/.test(p.name) ? 1 : 0, logFile: join(logDir, `${p.name}.log`) })),
    ...(mongo?.process ? [{ name: mongo.process.name, process: mongo.process, tier: 2 }] : []),
    ...(redis ? [{ name: redis.process.name, process: redis.process, tier: 3 }] : []),
  ];
  const stop = async (): Promise<void> => {
    const all = children();
    for (const tier of [0, 1]) await Promise.allSettled(all.filter((c) => c.tier === tier).map((c) => c.process.stop(ROLE_GRACE_MS)));
    await system?.stop();
    await mongo?.stop();
    await redis?.stop();
  };
  try {
    const given = env['REDIS_URL'];
    let redisUrl: string;
    if (given !== undefined && given !== '') redisUrl = given;
    else {
      redis = await startRedis({
        log: options.log,
        ...(data && { dir: data.redisDir, appendOnly: true }),
        ...((data || hook) && { port: await reusablePort(before.redis) }),
        ...(hook && { ownProcessGroup: true, onExit: (record, proc) => hook(record, proc, () => (redis as RedisServer).restart()) }),
      });
      redisUrl = redis.url;
    }
    // A process sas up restarts must come back at the URL the others were given: fixed ports.
    const fixed = data !== undefined || hook !== undefined;
    const mongoPort = fixed && (env['MONGO_URL'] ?? '') === '' ? await reusablePort(before.mongo) : undefined;
    mongo = await resolveMongo({
      log: options.log,
      env,
      skipMemoryServer: data !== undefined,
      embedded: {
        ...(data && { dataDir: data.mongoDir }),
        ...(mongoPort !== undefined && { port: mongoPort }),
        ...(hook && { ownProcessGroup: true, onExit: (record, proc) => hook(record, proc, () => restartOf(mongo)) }),
      },
    });
    const serviceEnv = {
      REDIS_URL: redisUrl,
      MONGO_URL: mongo.url,
      MONGO_DB: env['MONGO_DB'] ?? options.name,
      QUEUE_PREFIX: env['QUEUE_PREFIX'] ?? options.name,
    };
    const agentNames = [...new Set([...(options.builtInAgents ? ['inventory', 'payment', 'shipping'] : []), ...options.agents.map((a) => a.name), ...declared])];
    const core = workflowsFile ? { WORKFLOWS_FILE: workflowsFile } : {};
    const dashboardPort = options.dashboardPort !== 0 ? options.dashboardPort : fixed ? await reusablePort(before.dashboard) : 0;
    const remoteSimPort = options.builtInAgents && fixed ? await reusablePort(before.remoteSim) : 0;
    const roleEnv: Record<string, NodeJS.ProcessEnv> = {
      submission: core,
      scheduler: core,
      supervisor: core,
      core,
      dashboard: { PORT: String(dashboardPort), ...(agentNames.length > 0 ? { AGENTS: agentNames.join(',') } : {}) },
      'remote-sim': { PORT: String(remoteSimPort) },
    };
    for (const agent of options.agents) roleEnv[`agent-${agent.name}`] = { AGENT_MAPPING_FILE: resolve(agent.mappingFile), ...agent.env };
    const shared = options.sharedCore ?? false;
    const agents: Record<string, number> = {};
    const builtIn = options.builtInAgents ? ['inventory', 'payment', 'shipping'] : [];
    // Shared: the built-in agents, which share remote-sim's mapping, are one process too (decision 131);
    // an --agent has a mapping of its own and keeps its own process.
    if (shared && builtIn.length > 0) agents[builtIn.join('+')] = 1;
    else for (const name of builtIn) agents[name] = 1;
    for (const agent of options.agents) agents[agent.name] = 1;
    // Shared: the core process hosts one of each core role, and the dashboard starts after it, last as LocalSystem starts it.
    const inCore = shared ? 1 : 0;
    system = await LocalSystem.start({
      script: (role) => (role === 'core' ? coreScript() : roleScript(role)),
      remoteSim: options.builtInAgents ?? false,
      env: { ...serviceEnv, LOG_LEVEL: env['LOG_LEVEL'] ?? 'info' },
      topology: { agents, schedulers: options.schedulers - inCore, supervisors: options.supervisors - inCore, submission: 1 - inCore, dashboard: 1 - inCore },
      roleEnv,
      logDir,
      log: options.log,
      ...(hook && {
        ownProcessGroups: true,
        onExit: (record, proc) => hook(record, proc, async () => (await systemStarted).restart(proc as Parameters<LocalSystem['restart']>[0])),
      }),
    });
    resolveSystem(system);
    if (shared) {
      await system.spawn('core');
      await system.spawn('dashboard');
    }
    const dashboardUrl = dashboardUrlOf(system);
    const loginUrl = system.dashboardToken ? `${dashboardUrl}/login?token=${system.dashboardToken}` : `${dashboardUrl}/`;
    const redisKind = redis ? (data ? `a private redis-server, append-only in ${data.redisDir}` : 'a private redis-server, gone when sas up stops') : 'REDIS_URL';
    data?.recordPorts({
      ...(redis && { redis: redis.port }),
      ...(mongoPort !== undefined && { mongo: mongoPort }),
      dashboard: Number(new URL(dashboardUrl).port) || dashboardPort,
      ...(system.remoteSimUrl !== '' && { remoteSim: Number(new URL(system.remoteSimUrl).port) }),
    });
    const up: UpSystem = {
      env: serviceEnv,
      redisKind,
      mongo,
      logDir,
      loginUrl,
      dashboardUrl,
      system,
      children,
      recordable: () => children().flatMap((c) => (c.process.pid === undefined ? [] : [{ name: c.name, pid: c.process.pid, tier: Math.min(c.tier, 2) }])),
      stop,
      kill: async () => {
        await Promise.allSettled(children().map((c) => c.process.kill('SIGKILL')));
        await stop();
      },
    };
    return up;
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Restarts the embedded MongoDB a run started (the only kind `startUp` restarts). */
async function restartOf(mongo: MongoTarget | undefined): Promise<void> {
  if (mongo?.restart === undefined) throw new Error('this MongoDB was not started by sas up; it cannot restart it');
  await mongo.restart();
}

/** `port` when it is free now, else one the OS picks. */
async function reusablePort(port: number | undefined): Promise<number> {
  if (port !== undefined && (await portIsFree(port))) return port;
  return freePort();
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const server = createServer();
    server.once('error', () => resolvePort(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolvePort(true)));
  });
}

/** Checks the workflows file and each mapping; throws {@link UpRefused} with every problem. Returns the agents the workflows name. */
export function checkFiles(workflowsFile: string | undefined, agents: readonly UpAgent[]): string[] {
  const problems: string[] = [];
  const named: string[] = [];
  if (workflowsFile !== undefined) {
    let text: string | undefined;
    try {
      text = readFileSync(workflowsFile, 'utf8');
    } catch (e) {
      problems.push(`Cannot read the workflows file '${workflowsFile}': ${(e as Error).message}`);
    }
    if (text !== undefined) {
      const check = checkWorkflows(text, workflowsFile);
      if (!check.ok) problems.push(...check.lines, `${workflowsFile}: refused; sas workflows check ${workflowsFile} shows the same`);
      else named.push(...agentsOf(text));
    }
  }
  for (const agent of agents) {
    try {
      // The agent gets this environment, its own --agent-env over it: {env.X} in its URLs is filled from there.
      readMappingFile(resolve(agent.mappingFile), { ...process.env, ...agent.env });
    } catch (e) {
      problems.push(`--agent ${agent.name}: ${(e as Error).message}`);
    }
  }
  if (problems.length > 0) throw new UpRefused(problems);
  return named;
}

/** The agents a (checked) workflows file's steps name, for the dashboard's queue list. */
function agentsOf(text: string): string[] {
  const workflows = JSON.parse(text) as WorkflowDefinition[];
  return workflows.flatMap((w) => workflowAgents(w));
}

/** The dashboard's URL, from the `url` of its 'dashboard ready' log line. */
function dashboardUrlOf(system: LocalSystem): string {
  const line = system.byRole('dashboard')[0]?.lines.find((l) => l.json?.['msg'] === 'dashboard ready');
  return String(line?.json?.['url'] ?? '(dashboard not started)');
}
