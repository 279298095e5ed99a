/** The roles one process may host together, in the order they start (shutdown closes them in reverse). */
export const SHAREABLE_ROLES = ['supervisor', 'scheduler', 'submission'] as const;

/** A role {@link SHAREABLE_ROLES} names. */
export type ShareableRole = (typeof SHAREABLE_ROLES)[number];

/**
 * The roles a shared process hosts, from a comma-separated list (`SAS_ROLES`), in start order.
 * Throws naming what is wrong: an unknown role, a role given twice, or none.
 */
export function parseSharedRoles(list: string): ShareableRole[] {
  const words = list.split(',').map((w) => w.trim()).filter((w) => w !== '');
  if (words.length === 0) throw new Error(`SAS_ROLES names no role; give some of ${SHAREABLE_ROLES.join(', ')}, comma-separated`);
  for (const word of words) {
    if (!(SHAREABLE_ROLES as readonly string[]).includes(word)) throw new Error(`SAS_ROLES: '${word}' is not a role one process can host; the roles are ${SHAREABLE_ROLES.join(', ')}`);
    if (words.indexOf(word) !== words.lastIndexOf(word)) throw new Error(`SAS_ROLES names '${word}' twice; a process hosts each role once (start more processes for more replicas)`);
  }
  return SHAREABLE_ROLES.filter((r) => words.includes(r));
}

/**
 * The environment one role of a shared process starts from: the process's own, with an instance id
 * of its own (`<role>-<INSTANCE_ID>`, so leases, claims and histories still say which role acted,
 * as alone) and its probe port from `<ROLE>_PROBE_PORT` when given. A fixed PROBE_PORT cannot serve several roles'
 * probes, so it is refused for more than one role rather than failing later on a port in use.
 */
export function sharedRoleEnv(env: NodeJS.ProcessEnv, role: ShareableRole, roles: readonly ShareableRole[]): NodeJS.ProcessEnv {
  const own = env[`${role.toUpperCase()}_PROBE_PORT`];
  const probe = own ?? env['PROBE_PORT'];
  if (own === undefined && roles.length > 1 && probe !== undefined && Number(probe) > 0) {
    throw new Error(
      `PROBE_PORT=${probe} cannot serve the probes of ${roles.join(', ')} in one process; ` +
        `give each role its own (${roles.map((r) => `${r.toUpperCase()}_PROBE_PORT`).join(', ')}), 0 for any free port, or run each role in its own process`,
    );
  }
  const instanceId = env['INSTANCE_ID'];
  return {
    ...env,
    ...(instanceId !== undefined && instanceId !== '' ? { INSTANCE_ID: `${role}-${instanceId}` } : {}),
    ...(probe !== undefined ? { PROBE_PORT: probe } : {}),
  };
}
