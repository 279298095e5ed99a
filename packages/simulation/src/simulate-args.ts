import { parseArgs } from 'node:util';

/** What `pnpm simulate` was asked to do. */
export interface SimulateArgs {
  seeds: number;
  firstSeed: number;
  ordersPerSeed: number;
  /** Replay this seed with its full trace. */
  seed: number | undefined;
  mutant: string | undefined;
  /** Stop at the first seed with a violation (the mutant runs do). */
  stopAtFirst: boolean;
  help: boolean;
}

export const USAGE = `usage: pnpm simulate [--seeds N] [--first-seed F] [--orders-per-seed K] [--seed S] [--mutant NAME] [--stop-at-first]
  --seeds N            run seeds F .. F+N-1 (default 1000)
  --first-seed F       first seed of the batch (default 1)
  --orders-per-seed K  orders each seed submits (default 5)
  --seed S             replay seed S and print its whole trace (the same trace, byte for byte, every time)
  --mutant NAME        reintroduce a known bug first (see --mutant list) and stop at the first seed that finds it
  --stop-at-first      stop at the first seed with a violation`;

function count(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min} (got '${raw}')`);
  return n;
}

export function parseSimulateArgs(argv: readonly string[]): SimulateArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      seeds: { type: 'string' },
      'first-seed': { type: 'string' },
      'orders-per-seed': { type: 'string' },
      seed: { type: 'string' },
      mutant: { type: 'string' },
      'stop-at-first': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  return {
    seeds: count('seeds', values.seeds, 1000, 1),
    firstSeed: count('first-seed', values['first-seed'], 1, 0),
    ordersPerSeed: count('orders-per-seed', values['orders-per-seed'], 5, 1),
    seed: values.seed === undefined ? undefined : count('seed', values.seed, 0, 0),
    mutant: values.mutant,
    stopAtFirst: values['stop-at-first'] || values.mutant !== undefined,
    help: values.help,
  };
}
