import { runSeed, type SeedResult } from './run-seed';
import type { SimulateArgs } from './simulate-args';
import { addTally, emptyTally } from './trip-tally';

type Out = (line: string) => void;

/** Runs the batch, printing progress about every two seconds; 0 when no seed broke an invariant. */
export async function runBatch(args: SimulateArgs, out: Out): Promise<number> {
  const started = Date.now();
  let lastReport = started;
  let orders = 0;
  let failed = 0;
  let calls = 0;
  let crashes = 0;
  const trips = emptyTally();
  const last = args.firstSeed + args.seeds - 1;
  out(`simulating seeds ${args.firstSeed}..${last}, ${args.ordersPerSeed} orders each`);
  for (let seed = args.firstSeed; seed <= last; seed++) {
    const result = await runSeed(seed, { orders: args.ordersPerSeed });
    orders += result.orders;
    calls += result.counts.calls;
    crashes += result.counts.crashes;
    addTally(trips, result.trips);
    if (result.violations.length > 0) {
      failed += 1;
      await report(result, args.ordersPerSeed, out);
      if (args.stopAtFirst) {
        out(`found by seed ${seed}, the ${seed - args.firstSeed + 1}th tried`);
        return 1;
      }
    }
    const now = Date.now();
    if (now - lastReport >= 2_000 || seed === last) {
      lastReport = now;
      const s = (now - started) / 1000;
      out(`  ${seed - args.firstSeed + 1}/${args.seeds} seeds, ${orders} orders, ${(orders / s).toFixed(0)} orders/s, ${calls} awaited calls, ${crashes} crashes, ${failed} failing seeds`);
    }
  }
  out(`trips: ${trips.trips} (${trips.processed} Processed, ${trips.undone} undone), ${trips.membersCompleted} group members completed, ${trips.skipped} steps skipped, ${trips.waitsFired} waits fired, ${trips.signalsTaken} signals taken, ${trips.signalTimeouts} signal timeouts continued`);
  out(failed === 0 ? `no violation in ${args.seeds} seeds (${orders} orders)` : `${failed} of ${args.seeds} seeds broke an invariant; replay one with --seed`);
  return failed === 0 ? 0 : 1;
}

/** Replays one seed with its whole trace; 0 when it broke nothing. */
export async function replaySeed(seed: number, ordersPerSeed: number, out: Out): Promise<number> {
  const result = await runSeed(seed, { orders: ordersPerSeed, trace: true });
  for (const line of result.trace) out(line);
  out(`seed ${seed}: ${result.orders} orders, ended ${result.ended} after ${result.virtualMs} virtual ms, ${result.counts.calls} awaited calls, ${result.counts.crashes} crashes`);
  for (const v of result.violations) out(`VIOLATION ${v.invariant}${v.orderId ? ` (${v.orderId})` : ''}: ${v.detail}`);
  return result.violations.length === 0 ? 0 : 1;
}

/** A failing seed: its violations, then the trace lines about the orders concerned (the whole trace via --seed). */
async function report(result: SeedResult, ordersPerSeed: number, out: Out): Promise<void> {
  out(`\nseed ${result.seed} broke ${result.violations.length} invariant(s):`);
  for (const v of result.violations.slice(0, 10)) out(`  ${v.invariant}${v.orderId ? ` (${v.orderId})` : ''}: ${v.detail}`);
  const traced = await runSeed(result.seed, { orders: ordersPerSeed, trace: true });
  const orders = new Set(result.violations.map((v) => v.orderId).filter((o): o is string => o !== undefined));
  const relevant = traced.trace.filter((line) => orders.size === 0 || [...orders].some((o) => line.includes(`${o} `) || line.endsWith(o)) || /CRASH|RESTART|FAULTS OFF/.test(line));
  out(`  trace (${relevant.length} of ${traced.trace.length} lines; all of them: pnpm simulate --seed ${result.seed} --orders-per-seed ${ordersPerSeed}):`);
  for (const line of relevant.slice(-80)) out(`    ${line}`);
}
