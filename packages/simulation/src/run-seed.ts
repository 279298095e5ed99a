import { isTerminal } from '@sas/contracts';
import { checkInvariants, type Violation } from './invariants';
import { drawScenario, type Scenario } from './sim-scenario';
import { SimSystem } from './sim-system';
import { SimWorld } from './sim-world';
import { tallyTrips, type TripTally } from './trip-tally';

/** Options of {@link runSeed}. */
export interface RunSeedOptions {
  orders: number;
  /** Keep the trace (a replay does; a batch run reruns a failing seed with it). */
  trace?: boolean;
}

/** What one seed did. */
export interface SeedResult {
  seed: number;
  orders: number;
  violations: Violation[];
  /** How the quiet phase ended: `done` when everything settled. */
  ended: 'done' | 'deadline' | 'idle';
  virtualMs: number;
  counts: SimWorld['counts'];
  /** What the seed's trips came to. */
  trips: TripTally;
  trace: readonly string[];
  scenario: Scenario;
}

const START = Date.UTC(2030, 0, 1);
/** How long the system may take to settle after the faults stop. */
const QUIET_PHASE_MS = 30 * 60_000;

/**
 * Runs one seed: draws its scenario, runs the system with faults for the scenario's window, then
 * without faults until every order has ended and every outbox drained (or the quiet phase's
 * bound passed), and checks the invariants.
 */
export async function runSeed(seed: number, options: RunSeedOptions): Promise<SeedResult> {
  const world = new SimWorld(seed, { start: START, trace: options.trace ?? false });
  const scenario = drawScenario(world.rng, options.orders, START);
  if (world.tracing) world.trace(`seed ${seed}: ${JSON.stringify({ ...scenario, remote: { ...scenario.remote, honoursCompensates: [...scenario.remote.honoursCompensates] } })}`);
  const system = new SimSystem(world, scenario);
  world.beforeStep = () => system.bus.pump();
  system.start();
  world.faultsOn = true;
  world.rates = scenario.rates;
  await world.run(() => false, START + scenario.faultWindowMs);
  world.faultsOn = false;
  world.trace('FAULTS OFF');
  const expected = scenario.orders.map((o) => o.orderId);
  const faultsEndedAt = world.clock.now();
  const settled = async (): Promise<boolean> => {
    // Cheapest first: this runs at every rest point of the quiet phase.
    if (system.submitted.size < expected.length || system.bus.hasUnfinished()) return false;
    for (const orderId of expected) {
      const statuses = system.statuses.get(orderId);
      if (!statuses?.some((s) => s.status === 'Processed' || s.status === 'Compensated' || s.status === 'Canceled')) return false;
    }
    if (!system.store.inspect((d) => isTerminal(d.state) && (d.outbox ?? []).length === 0).every(Boolean)) return false;
    return system.jobsCaughtUp(faultsEndedAt);
  };
  const ended = await world.run(settled, world.clock.now() + QUIET_PHASE_MS);
  const violations = await checkInvariants(system, [...system.submitted].sort(), faultsEndedAt);
  if (ended !== 'done' && violations.length === 0) violations.push({ invariant: 'the system settles', detail: `the quiet phase ended '${ended}' with work left: ${JSON.stringify([...system.bus.unfinished()])}` });
  return { seed, orders: expected.length, violations, ended, virtualMs: world.clock.now() - START, counts: world.counts, trips: tallyTrips(system.store.list()), trace: world.traceLines(), scenario };
}
