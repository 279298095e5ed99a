import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './workspace-facts';

/**
 * `npm test` runs eslint itself (scripts/run.mjs); knip, the other half of `pnpm lint`, runs here so
 * the suite fails on what it finds: a file nothing reaches, an export or type nobody imports (tests
 * count as users), a dependency no file uses or a file's import of one that is not listed, and an
 * import cycle. knip.jsonc says where the entries are; docs/development.md says how to fix a finding.
 */

const KNIP = join(ROOT, 'node_modules', 'knip', 'bin', 'knip.js');

describe('the workspace, read by knip with knip.jsonc', () => {
  it('has no unused file, export, type or dependency, no unlisted dependency and no import cycle', () => {
    const run = spawnSync(process.execPath, [KNIP, '--no-progress'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    if (run.error) throw new Error(`could not run knip (${KNIP}): ${run.error.message}; run \`npm run setup\` to install it`);
    // knip exits 0 only when it found nothing; otherwise the failure shows its whole report, each
    // line naming the kind of finding, the symbol and the file.
    const report = `${run.stdout}${run.stderr}`.trim();
    expect(run.status === 0 ? 'no findings' : `knip exited ${String(run.status ?? run.signal)}:\n${report}`).toBe('no findings');
  });
});
