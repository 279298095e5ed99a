import { ROLE_PACKAGES, roleScript, type Role } from './role-scripts';

/** Usage of the role commands, part of the CLI's help. */
export const ROLE_USAGE = `  ${Object.keys(ROLE_PACKAGES).join(' | ')}
        run one service in this process, configured by its environment as in a deployment
        (REDIS_URL, MONGO_URL, WORKFLOWS_FILE, AGENT, AGENT_MAPPING_FILE, ...; see docs)`;

/**
 * `sas scheduler` (and the other roles): loads the role's service package, whose main module
 * starts the service, installs its shutdown on SIGTERM/SIGINT and exits when stopped.
 */
export async function runRole(role: Role): Promise<void> {
  await import(roleScript(role));
}
