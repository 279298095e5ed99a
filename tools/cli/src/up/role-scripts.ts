import { join } from 'node:path';

/** The roles `sas` runs as commands (`sas scheduler`, ...), each the main module of its service package. */
export const ROLE_PACKAGES = {
  submission: '@sas/submission',
  scheduler: '@sas/scheduler',
  supervisor: '@sas/supervisor',
  agent: '@sas/http-agent',
  dashboard: '@sas/dashboard',
  'remote-sim': '@sas/remote-sim',
} as const;

/** A role `sas` can run. */
export type Role = keyof typeof ROLE_PACKAGES;

/** Whether a command-line word names a role. */
export function isRole(word: string | undefined): word is Role {
  return word !== undefined && Object.hasOwn(ROLE_PACKAGES, word);
}

/**
 * The entry point of a role, resolved from the installed service package (`@sas/scheduler/main`),
 * so the same lookup works in the workspace and in an application's node_modules.
 */
export function roleScript(role: string): string {
  if (!isRole(role)) throw new Error(`No service role '${role}'; the roles are ${Object.keys(ROLE_PACKAGES).join(', ')}`);
  return require.resolve(`${ROLE_PACKAGES[role]}/main`);
}

/**
 * The entry point of the core process, which hosts submission, a scheduler and a supervisor
 * together (`core-main`, beside this file in the CLI's own package).
 */
export function coreScript(): string {
  return join(__dirname, 'core-main.js');
}
