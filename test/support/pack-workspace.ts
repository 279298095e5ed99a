import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The workspace root, as tests in `test/<area>/` see it. */
export const WORKSPACE_ROOT = join(__dirname, '..', '..');

/** Runs a command to completion; throws with its output when it fails or exits non-zero. */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env });
  if (result.error) throw new Error(`could not run ${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status} in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** pnpm as the repository runs it (scripts/run.mjs): the one on PATH if its major matches, else through npx. */
export function pnpm(): [string, string[]] {
  const wanted = String(JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')).packageManager); // pnpm@x.y.z
  const have = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  const major = wanted.split('@')[1]?.split('.')[0];
  if (have.status === 0 && have.stdout.trim().split('.')[0] === major) return ['pnpm', []];
  return ['npx', ['-y', wanted]];
}

/**
 * Packs workspace packages as they would be published (`workspace:`/`catalog:` ranges replaced
 * by versions; needs `tsc -b` first) into `destination`. Returns package name → tarball path.
 *
 * @param dirs package directories relative to the workspace root, e.g. `packages/client`
 */
export function packWorkspacePackages(dirs: readonly string[], destination: string): Map<string, string> {
  const [command, prefix] = pnpm();
  const tarballs = new Map<string, string>();
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(WORKSPACE_ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string };
    run(command, [...prefix, 'pack', '--pack-destination', destination], join(WORKSPACE_ROOT, dir));
    // pnpm names the tarball `<scope>-<name>-<version>.tgz`: `@sas/client` → `sas-client-0.1.0.tgz`.
    tarballs.set(manifest.name, join(destination, `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`));
  }
  return tarballs;
}

/** `npm install` of the given tarballs (and the registry for everything else) in `dir`, without scripts. */
export function npmInstall(dir: string, specs: readonly string[], timeoutMs = 170_000): void {
  run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', ...specs], dir, timeoutMs);
}
