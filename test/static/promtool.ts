import { spawnSync } from 'node:child_process';

/** What a promtool run printed and how it ended. */
export interface PromtoolRun {
  status: number | null;
  output: string;
}

/**
 * Runs Prometheus's `promtool` with `args` in `cwd`. promtool comes from Debian's `prometheus`
 * package; when it is missing this throws with the command that installs it, so a machine without
 * it fails the checks instead of skipping them.
 */
export function promtool(args: readonly string[], cwd?: string): PromtoolRun {
  const run = spawnSync(process.env['SAS_PROMTOOL'] ?? 'promtool', args, { cwd, encoding: 'utf8', timeout: 60_000 });
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new Error(
      'promtool is not installed, so the Prometheus rules and the Grafana queries cannot be checked. ' +
        'Install Debian\'s prometheus package (as root: apt-get update && apt-get install -y --no-install-recommends prometheus), ' +
        'or point SAS_PROMTOOL at a promtool binary.',
    );
  }
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}
