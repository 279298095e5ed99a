import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MUTANTS } from './mutants';

const root = join(__dirname, '..', '..', '..');
const cli = join(root, 'packages/simulation/dist/simulate.js');
const run = promisify(execFile);

// The simulation is worth what it catches: each known bug, reintroduced in a child process by
// rewriting one line of a built file as it loads, must break an invariant within 10,000 seeds.
describe('the simulation finds each reintroduced bug', () => {
  it.each(MUTANTS.map((m) => [m.name, m] as const))('%s: its rewrite fits the code (matches exactly once)', (_name, mutant) => {
    const source = readFileSync(join(root, mutant.file), 'utf8');
    expect(source.match(new RegExp(mutant.find.source, 'g'))?.length ?? 0).toBe(1);
  });

  it.each(MUTANTS.filter((m) => m.found).map((m) => [m.name, m] as const))('%s: found within 10,000 seeds', async (name, mutant) => {
    const outcome = await run(process.execPath, [cli, '--mutant', name, '--seeds', '10000'], { maxBuffer: 64 * 1024 * 1024 }).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
    );
    expect(outcome.stdout).toMatch(/found by seed \d+/);
    // By the invariant it breaks, when it names one: not by some other failure the rewrite caused.
    if (mutant.breaks !== undefined) expect(outcome.stdout).toContain(`  ${mutant.breaks}`);
    expect(outcome.code).toBe(1);
    const seeds = Number(/the (\d+)\w* tried/.exec(outcome.stdout)?.[1]);
    process.stdout.write(`mutant ${name}: found after ${seeds} seeds\n`);
  }, 600_000);
});
