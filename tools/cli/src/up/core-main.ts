import { createRequire } from 'node:module';
import { SHAREABLE_ROLES, collectServiceMains, parseSharedRoles, runSharedProcess, type ServiceMain } from '@sas/wiring';
import { roleScript } from './role-scripts';

/**
 * The core process of a small deployment (`sas up`'s default): submission, a scheduler and a
 * supervisor in one Node process (`SAS_ROLES` picks some of them), each configured by this
 * process's environment exactly as it would be alone. Production keeps one role per container.
 */
async function main(): Promise<void> {
  const roles = parseSharedRoles(process.env['SAS_ROLES'] ?? SHAREABLE_ROLES.join(','));
  // The installed service packages' main modules, loaded (not started) so this process starts them.
  const load = createRequire(__filename);
  const loadMains = (): Map<string, ServiceMain> =>
    collectServiceMains(() => {
      for (const role of roles) load(roleScript(role));
    });
  await runSharedProcess({ name: 'core', roles, loadMains, env: process.env });
}

main().catch((e: unknown) => {
  // The logger may not exist yet (bad config): stderr is the only place left to say why.
  process.stderr.write(`core failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
