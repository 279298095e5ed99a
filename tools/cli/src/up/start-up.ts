import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readMappingFile } from '@sas/http-agent';
import { LocalSystem, resolveMongo, startRedis, type LogFn, type MongoTarget, type RedisServer } from '@sas/stack';
import { workflowAgents, type WorkflowDefinition } from '@sas/workflow';
import { checkWorkflows } from '../check-workflows';
import { coreScript, roleScript } from './role-scripts';
import type { UpAgent } from './up-options';

/** Options of {@link startUp}. */
export interface StartUpOptions {
  /** Checked before anything starts; given to submission, schedulers and supervisors as WORKFLOWS_FILE. */
  workflowsFile?: string;
  /** One HTTP agent each, with its mapping (checked before anything starts). */
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
  dashboardPort: number;
  /** Where the logs go; a new folder under the temp dir when not given. */
  logDir?: string;
  /** MONGO_DB and QUEUE_PREFIX, unless the environment sets them. */
  name: string;
  /** Progress lines and unexpected exits of services (`<name> exited unexpectedly`, with its last lines). */
  log: LogFn;
  /** Where REDIS_URL, MONGO_URL, MONGO_DB and QUEUE_PREFIX are read. @default process.env */
  env?: NodeJS.ProcessEnv;
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
  stop(): Promise<void>;
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

/**
 * `sas up` and the demo: checks the workflows and mapping files, then starts Redis (REDIS_URL, else
 * a private redis-server), MongoDB (MONGO_URL, else as {@link resolveMongo} finds one), and every
 * service as its own process from the installed service packages (or, with `sharedCore`, the core
 * roles together in one), waiting for each one's ready line.
 */
export async function startUp(options: StartUpOptions): Promise<UpSystem> {
  const env = options.env ?? process.env;
  const workflowsFile = options.workflowsFile === undefined ? undefined : resolve(options.workflowsFile);
  const declared = checkFiles(workflowsFile, options.agents);
  const logDir = options.logDir ?? join(tmpdir(), 'sas-up', `${options.name}-${randomBytes(3).toString('hex')}`);
  mkdirSync(logDir, { recursive: true });

  let redis: RedisServer | undefined;
  let mongo: MongoTarget | undefined;
  let system: LocalSystem | undefined;
  const stop = async (): Promise<void> => {
    await system?.stop();
    await mongo?.stop();
    await redis?.stop();
  };
  try {
    const given = env['REDIS_URL'];
    const redisUrl = given !== undefined && given !== '' ? given : (redis = await startRedis({ log: options.log })).url;
    mongo = await resolveMongo({ log: options.log, env });
    const serviceEnv = {
      REDIS_URL: redisUrl,
      MONGO_URL: mongo.url,
      MONGO_DB: env['MONGO_DB'] ?? options.name,
      QUEUE_PREFIX: env['QUEUE_PREFIX'] ?? options.name,
    };
    const agentNames = [...new Set([...(options.builtInAgents ? ['inventory', 'payment', 'shipping'] : []), ...options.agents.map((a) => a.name), ...declared])];
    const core = workflowsFile ? { WORKFLOWS_FILE: workflowsFile } : {};
    const roleEnv: Record<string, NodeJS.ProcessEnv> = {
      submission: core,
      scheduler: core,
      supervisor: core,
      core,
      dashboard: { PORT: String(options.dashboardPort), ...(agentNames.length > 0 ? { AGENTS: agentNames.join(',') } : {}) },
    };
    for (const agent of options.agents) roleEnv[`agent-${agent.name}`] = { AGENT_MAPPING_FILE: resolve(agent.mappingFile) };
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
    });
    if (shared) {
      await system.spawn('core');
      await system.spawn('dashboard');
    }
    const dashboardUrl = dashboardUrlOf(system);
    const loginUrl = system.dashboardToken ? `${dashboardUrl}/login?token=${system.dashboardToken}` : `${dashboardUrl}/`;
    const redisKind = redis ? 'a private redis-server, gone when sas up stops' : 'REDIS_URL';
    return { env: serviceEnv, redisKind, mongo, logDir, loginUrl, dashboardUrl, system, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Checks the workflows file and each mapping; throws {@link UpRefused} with every problem. Returns the agents the workflows name. */
function checkFiles(workflowsFile: string | undefined, agents: readonly UpAgent[]): string[] {
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
      readMappingFile(resolve(agent.mappingFile));
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
