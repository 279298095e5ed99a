#!/usr/bin/env node
import { join } from 'node:path';
import { installMutant } from './install-mutant';
import { MUTANTS, mutantNamed } from './mutants';
import { USAGE, parseSimulateArgs, type SimulateArgs } from './simulate-args';

// The CLI of the simulation: `pnpm simulate --seeds 10000`. Its modules under test are required
// only after a mutant (if any) is installed, so the rewrite sees them load.

const out = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(argv: readonly string[]): Promise<number> {
  let args: SimulateArgs;
  try {
    args = parseSimulateArgs(argv);
  } catch (e) {
    out(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    out(USAGE);
    return 0;
  }
  if (args.mutant === 'list') {
    for (const m of MUTANTS) out(`${m.name.padEnd(30)} ${m.description}`);
    return 0;
  }
  let applied: (() => boolean) | undefined;
  if (args.mutant !== undefined) {
    const mutant = mutantNamed(args.mutant);
    applied = installMutant(mutant, join(__dirname, '..', '..', '..'));
    out(`mutant ${mutant.name}: ${mutant.description}`);
  }
  // A batch builds an Error for every injected fault and nobody reads their stacks (a failing seed is
  // replayed with --seed, which keeps them): capturing them costs a tenth of a batch's time.
  if (args.seed === undefined) Error.stackTraceLimit = 0;
  const { runBatch, replaySeed } = await import('./simulate-batch.js');
  const code = args.seed !== undefined ? await replaySeed(args.seed, args.ordersPerSeed, out) : await runBatch(args, out);
  if (applied && !applied()) {
    out(`the mutant's file never loaded: it tests nothing; fix its path`);
    return 2;
  }
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    out(`simulate failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(1);
  },
);
