import { closeAll, createLogger, defaultInstanceId, ProcessShutdown, type Closable } from '@sas/runtime';
import { waitForConnections } from './connections-wait';
import type { ServiceMain, StartedService } from './run-main';
import { sharedRoleEnv, type ShareableRole } from './shared-role-env';
import { startService, type StartingConnections } from './starting-service';

/** Options of {@link runSharedProcess}. */
export interface SharedProcessOptions {
  /** The process's name in its own log lines (`core`); its ready line is `<name> ready`. */
  name: string;
  /** The roles to host, in start order (see {@link parseSharedRoles}). */
  roles: readonly ShareableRole[];
  /**
   * Each role's main, as {@link collectServiceMains} finds them; called once the shutdown is
   * installed, so a signal while the roles' code loads is answered too.
   */
  loadMains: () => ReadonlyMap<string, ServiceMain>;
  env: NodeJS.ProcessEnv;
}

interface StartedRole {
  role: ShareableRole;
  service: StartedService;
  connections: readonly StartingConnections[];
}

/**
 * Runs several roles in this one process, each as it would run alone: its own configuration (from
 * the same environment), connections, engine, metrics and probe, so nothing one role does can
 * change another's guarantees; what they share is the Node runtime and the loaded code, which is
 * most of a small deployment's memory. One shutdown, installed before anything starts, closes the
 * roles in the reverse of their start order (submission first: no new orders, then the
 * schedulers, the supervisor last), each its own components in its own order; a signal during
 * start-up starts no further role and closes those started. The roles report ready, and then the
 * process (`<name> ready`), only once every role's connections are up. A role that fails to start,
 * or whose connections do not come up in time, closes those already started and rejects, naming it.
 */
export async function runSharedProcess(options: SharedProcessOptions): Promise<void> {
  const { name, roles, env } = options;
  const instanceId = env['INSTANCE_ID'] || defaultInstanceId(name);
  const logger = createLogger({ service: name, instanceId, level: env['LOG_LEVEL'] ?? 'info' });
  const shutdown = new ProcessShutdown(() => logger);
  // From here a signal is this process's to answer: the line says so to whoever waits on it.
  logger.info({ roles }, `${name} starting`);
  const mains = options.loadMains();
  const started: StartedRole[] = [];
  const closeRole = ({ role, service }: StartedRole): Closable => ({
    name: role,
    close: async () => {
      if (!(await closeAll(service.logger, service.closables))) throw new Error(`${role}: a component did not close (the ${role} lines above say which)`);
    },
  });
  const failed = async (role: ShareableRole, what: string, e: unknown): Promise<never> => {
    await closeAll(logger, started.map(closeRole).reverse());
    throw new Error(`${role} ${what}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  };
  for (const role of roles) {
    if (shutdown.requested) break;
    const main = mains.get(role);
    if (!main) throw new Error(`No main module registered the role '${role}'; loaded: ${[...mains.keys()].join(', ') || 'none'}`);
    const starting = startService(() => main(sharedRoleEnv(env, role, roles)));
    try {
      const entry: StartedRole = { role, service: await starting.result, connections: starting.connections };
      started.push(entry);
      shutdown.hold(logger, [closeRole(entry)]);
    } catch (e) {
      return failed(role, 'failed to start', e);
    }
  }
  shutdown.started();
  for (const { role, connections } of started) {
    try {
      if ((await waitForConnections(role, logger, connections, { stopped: () => shutdown.requested })) === 'stopped') return;
    } catch (e) {
      return failed(role, 'failed to start', e);
    }
  }
  for (const { service } of started) service.ready();
  logger.info({ roles }, `${name} ready`);
}
