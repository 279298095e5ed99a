import { closeAll, createLogger, defaultInstanceId, installShutdown, type Closable } from '@sas/runtime';
import type { ServiceMain, StartedService } from './run-main';
import { sharedRoleEnv, type ShareableRole } from './shared-role-env';

/** Options of {@link runSharedProcess}. */
export interface SharedProcessOptions {
  /** The process's name in its own log lines (`core`); its ready line is `<name> ready`. */
  name: string;
  /** The roles to host, in start order (see {@link parseSharedRoles}). */
  roles: readonly ShareableRole[];
  /** Each role's main, as {@link collectServiceMains} found them. */
  mains: ReadonlyMap<string, ServiceMain>;
  env: NodeJS.ProcessEnv;
}

/**
 * Runs several roles in this one process, each as it would run alone: its own configuration (from
 * the same environment), connections, engine, metrics and probe, so nothing one role does can
 * change another's guarantees; what they share is the Node runtime and the loaded code, which is
 * most of a small deployment's memory. One shutdown closes the roles in the reverse of their start
 * order (submission first: no new orders, then the schedulers, the supervisor last), each its
 * own components in its own order. A role that fails to start closes those already started and
 * rejects, naming it.
 */
export async function runSharedProcess(options: SharedProcessOptions): Promise<void> {
  const { name, roles, mains, env } = options;
  const instanceId = env['INSTANCE_ID'] || defaultInstanceId(name);
  const logger = createLogger({ service: name, instanceId, level: env['LOG_LEVEL'] ?? 'info' });
  const started: Array<{ role: ShareableRole; service: StartedService }> = [];
  const closeRole = ({ role, service }: { role: ShareableRole; service: StartedService }): Closable => ({
    name: role,
    close: async () => {
      if (!(await closeAll(service.logger, service.closables))) throw new Error(`${role}: a component did not close (the ${role} lines above say which)`);
    },
  });
  for (const role of roles) {
    const main = mains.get(role);
    if (!main) throw new Error(`No main module registered the role '${role}'; loaded: ${[...mains.keys()].join(', ') || 'none'}`);
    try {
      started.push({ role, service: await main(sharedRoleEnv(env, role, roles)) });
    } catch (e) {
      await closeAll(logger, started.map(closeRole).reverse());
      throw new Error(`${role} failed to start: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  installShutdown(logger, started.map(closeRole).reverse());
  for (const { service } of started) service.ready();
  logger.info({ roles }, `${name} ready`);
}
