import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { LogFn } from './log-fn';
import type { ManagedProcessOptions } from './managed-process';
import { ServiceProcess } from './service-process';
import { READY_MESSAGES, type ServiceRole, type SystemTopology } from './system-topology';
import { serviceScript } from './workspace-root';

/** Options of {@link LocalSystem.start}. */
export interface LocalSystemOptions {
  /** Workspace root (see `findWorkspaceRoot`); where {@link LocalSystemOptions.script} is not given, services run from `<root>/services/<role>/dist/main.js`. */
  root?: string;
  /**
   * The entry point of a role (`scheduler`, `agent`, `remote-sim`, ...). An installed `sas up` gives
   * the scripts of the installed service packages, having no workspace. @default serviceScript(root, role)
   */
  script?: (role: string) => string;
  /** Whether remote-sim (the simulated remote services the built-in agents call) runs first. @default true */
  remoteSim?: boolean;
  /** REDIS_URL, MONGO_URL, MONGO_DB, QUEUE_PREFIX, LOG_LEVEL, ... given to every service. */
  env: NodeJS.ProcessEnv;
  topology?: SystemTopology;
  /**
   * Extra environment per role (`scheduler`, `supervisor`, `agent`, `remote-sim`, `submission`, `dashboard`),
   * and per agent (`agent-payment`), which comes after the `agent` entry.
   */
  roleEnv?: Partial<Record<string, NodeJS.ProcessEnv>>;
  /** One log file per process is written here. */
  logDir?: string;
  log?: LogFn;
  /** Per-process readiness deadline. @default 30000 */
  readyTimeoutMs?: number;
  /** Told of every exit of every process (`sas up` restarts the ones that crashed). */
  onExit?: ManagedProcessOptions['onExit'];
  /**
   * Each process in a process group of its own, so a terminal's Ctrl-C reaches only the launcher,
   * which stops the services in order. @default false (tests signal processes one by one)
   */
  ownProcessGroups?: boolean;
}

/**
 * Every service of the system as its own OS process, as in production: remote-sim first (the
 * agents need its URL), then agents, schedulers, supervisors and submission, then any dashboards.
 * Tests crash and restart single processes; the demo runs the same thing.
 */
export class LocalSystem {
  private readonly processes: ServiceProcess[] = [];
  private counters = new Map<string, number>();
  private stopping: Promise<void> | undefined;
  remoteSimUrl = '';
  /**
   * A random operator token for the dashboards this system starts (`DASHBOARD_TOKENS=operator:local:<token>`),
   * so tests and the demo sign in with it; `undefined` when `roleEnv.dashboard` sets `DASHBOARD_TOKENS`
   * or `DASHBOARD_AUTH` itself.
   */
  readonly dashboardToken: string | undefined;

  private constructor(private readonly options: LocalSystemOptions) {
    const own = options.roleEnv?.['dashboard'];
    this.dashboardToken = own?.['DASHBOARD_TOKENS'] !== undefined || own?.['DASHBOARD_AUTH'] !== undefined ? undefined : randomBytes(24).toString('base64url');
  }

  static async start(options: LocalSystemOptions): Promise<LocalSystem> {
    const system = new LocalSystem(options);
    try {
      await system.startAll();
    } catch (e) {
      await system.stop();
      throw e;
    }
    return system;
  }

  private async startAll(): Promise<void> {
    const t = this.options.topology ?? {};
    if (this.options.remoteSim ?? true) {
      // A fixed PORT in roleEnv keeps the URL the agents were given across a restart of remote-sim.
      const sim = await this.spawn('remote-sim', { PORT: this.options.roleEnv?.['remote-sim']?.['PORT'] ?? '0' });
      const listening = await sim.waitForLine((l) => l.json?.['msg'] === 'listening', 5000, 'remote-sim listening');
      this.remoteSimUrl = String(listening.json?.['url'] ?? `http://127.0.0.1:${String(listening.json?.['port'])}`);
    }
    const agents = t.agents ?? { inventory: 1, payment: 1, shipping: 1 };
    const starts: Promise<ServiceProcess>[] = [];
    for (const [agent, replicas] of Object.entries(agents)) {
      for (let i = 0; i < replicas; i++) starts.push(this.spawn(`agent-${agent}`));
    }
    for (let i = 0; i < (t.schedulers ?? 2); i++) starts.push(this.spawn('scheduler'));
    for (let i = 0; i < (t.supervisors ?? 2); i++) starts.push(this.spawn('supervisor'));
    for (let i = 0; i < (t.submission ?? 1); i++) starts.push(this.spawn('submission'));
    await Promise.all(starts);
    // Last, so its queue list and read model find a running system; PORT 0 unless the caller fixes one.
    const dashboardPort = this.options.roleEnv?.['dashboard']?.['PORT'] ?? '0';
    for (let i = 0; i < (t.dashboard ?? 0); i++) await this.spawn('dashboard', { PORT: dashboardPort });
  }

  /** Starts one more process of a role and waits until it is serving. */
  async spawn(role: ServiceRole, extraEnv: NodeJS.ProcessEnv = {}): Promise<ServiceProcess> {
    const n = (this.counters.get(role) ?? 0) + 1;
    this.counters.set(role, n);
    const name = `${role}-${n}`;
    const isAgent = role.startsWith('agent-');
    const base = isAgent ? 'agent' : role;
    const proc = new ServiceProcess({
      name,
      script: this.scriptOf(base),
      env: {
        ...this.options.env,
        ...this.options.roleEnv?.[base],
        ...(isAgent ? { AGENT: role.slice('agent-'.length), ...(this.remoteSimUrl ? { REMOTE_URL: this.remoteSimUrl } : {}) } : {}),
        ...(isAgent ? this.options.roleEnv?.[role] : {}),
        ...(base === 'dashboard' && this.dashboardToken ? { DASHBOARD_TOKENS: `operator:local:${this.dashboardToken}` } : {}),
        INSTANCE_ID: name,
        ...extraEnv,
      },
      logFile: this.options.logDir ? join(this.options.logDir, `${name}.log`) : undefined,
      log: this.options.log,
      onExit: this.options.onExit,
      ownProcessGroup: this.options.ownProcessGroups,
    });
    this.processes.push(proc);
    await this.startAndWait(proc);
    return proc;
  }

  /** Starts a process of this system that is not running (one that crashed) again, and waits until it is serving. */
  async restart(proc: ServiceProcess): Promise<void> {
    if (!this.processes.includes(proc)) throw new Error(`${proc.name} is not a process of this system`);
    await this.startAndWait(proc);
  }

  private async startAndWait(proc: ServiceProcess): Promise<void> {
    await proc.start();
    const ready = READY_MESSAGES[proc.name.replace(/-\d+$/, '').replace(/^agent-.*$/, 'agent')] ?? 'ready';
    await proc.waitForLine((l) => l.json?.['msg'] === ready, this.options.readyTimeoutMs ?? 30_000, `${proc.name} to log '${ready}'`);
  }

  private scriptOf(role: string): string {
    if (this.options.script) return this.options.script(role);
    if (this.options.root === undefined) throw new Error('LocalSystem needs either root (the workspace) or script (where each role runs from)');
    return serviceScript(this.options.root, role);
  }

  /** Processes of a role (`scheduler`, `agent-payment`, ...), in start order. */
  byRole(role: ServiceRole): ServiceProcess[] {
    return this.processes.filter((p) => p.name.replace(/-\d+$/, '') === role);
  }

  get all(): readonly ServiceProcess[] {
    return this.processes;
  }

  /** Stops every process: submission and schedulers first, remote-sim last. Idempotent, never throws. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const order = [...this.processes].reverse();
      await Promise.allSettled(order.map((p) => p.stop()));
    })();
    return this.stopping;
  }
}
