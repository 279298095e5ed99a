import { runSeed } from './run-seed';
import { addTally, emptyTally } from './trip-tally';

// The short run of `npm test`: the long one is `pnpm simulate --seeds 200000` (see docs/simulation.md).
const SEEDS = 2000;
const ORDERS_PER_SEED = 3;

describe('the deterministic simulation', () => {
  it(`breaks no invariant in ${SEEDS} seeds of ${ORDERS_PER_SEED} orders`, async () => {
    const failing: string[] = [];
    let orders = 0;
    let crashes = 0;
    const trips = emptyTally();
    for (let seed = 1; seed <= SEEDS; seed++) {
      const result = await runSeed(seed, { orders: ORDERS_PER_SEED });
      orders += result.orders;
      crashes += result.counts.crashes;
      addTally(trips, result.trips);
      if (result.violations.length > 0) failing.push(`seed ${seed}: ${result.violations.map((v) => `${v.invariant}: ${v.detail}`).join('; ')} (replay: pnpm simulate --seed ${seed} --orders-per-seed ${ORDERS_PER_SEED})`);
    }
    expect(failing).toEqual([]);
    // The run must have exercised what it claims to: orders, and crashes among them.
    expect(orders).toBe(SEEDS * ORDERS_PER_SEED);
    expect(crashes).toBeGreaterThan(SEEDS);
    // And trips, with every construct reaching each of its outcomes.
    for (const [what, count] of Object.entries(trips)) expect([what, count > 0]).toEqual([what, true]);
    process.stdout.write(`trips: ${JSON.stringify(trips)}\n`);
  }, 600_000);

  it('replays a seed exactly: the same trace, byte for byte', async () => {
    for (const seed of [7, 18, 1234]) {
      const first = await runSeed(seed, { orders: 5, trace: true });
      const second = await runSeed(seed, { orders: 5, trace: true });
      expect(first.trace.length).toBeGreaterThan(100);
      expect(second.trace.join('\n')).toBe(first.trace.join('\n'));
      expect(second.counts).toEqual(first.counts);
    }
  });

  it('explores different interleavings for different seeds', async () => {
    const traces = new Set<string>();
    for (const seed of [1, 2, 3, 4]) traces.add((await runSeed(seed, { orders: 3, trace: true })).trace.join('\n'));
    expect(traces.size).toBe(4);
  });
});
