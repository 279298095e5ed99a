import { runSeed } from './run-seed';

/**
 * Every bug the simulation found, kept as the seed that found it: each broke an invariant before
 * its fix. The trace of a seed changes when the code does, so these guard the fix only as long
 * as the seed still reaches the same situation; the unit test named beside each one pins it for good.
 */
const FOUND: readonly { seed: number; orders: number; bug: string; unitTest: string }[] = [
  {
    seed: 5704,
    orders: 10,
    bug: 'a dispatch whose send failed had left all the same; a cancel undid its step at once and the forward call landed after its undo',
    unitTest: "transition-cancel.test.ts 'holds the undo until the complete-by of a dispatch whose send failed…'",
  },
  {
    seed: 101968,
    orders: 10,
    bug: "a parked reply whose send failed: the agent called again under that attempt after the cancel's undo (payment ignores compensates), and the charge stayed",
    unitTest: "transition-cancel.test.ts 'holds the undo after a reply that was parked (its breaker open) until that attempt's complete-by…'",
  },
  {
    seed: 150856,
    orders: 10,
    bug: "a scheduler whose commit answer was lost took another scheduler's write of the same revision, state, attempt, owner and millisecond for its own (a parked reply against a release of an unsent dispatch) and went on as if it had won",
    unitTest: "process-engine-conflicts.test.ts 'does not take a look-alike write of another writer for its own…'",
  },
];

describe('seeds that found bugs', () => {
  it.each(FOUND.map((f) => [f.seed, f] as const))('seed %i breaks no invariant', async (_seed, found) => {
    const result = await runSeed(found.seed, { orders: found.orders });
    expect(result.violations).toEqual([]);
    expect(result.ended).toBe('done');
  });
});
