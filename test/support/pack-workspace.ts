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
