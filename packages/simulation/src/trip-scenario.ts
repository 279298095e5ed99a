import type { JsonObject } from '@sas/contracts';
import { seededRandom, type SeededRandom } from './seeded-random';
import { TRIP_SIGNAL_TIMEOUT_MS, TRIP_WORKFLOWS, type TripWorkflow } from './trip-workflows';

/** One signal the application sends (a send; a duplicate is a second send of the same signalId). */
export interface SimSignal {
  /** Index of the order in the scenario. */
  order: number;
  signalId: string;
  name: string;
  /** Names its own signalId, so a step's result tells which signal it took. */
  data: JsonObject;
  /** Virtual ms after the start. */
  atMs: number;
  /** Why the scenario sends it then: early (maybe before the process exists), in time, racing the timeout, late, a duplicate. */
  timing: 'early' | 'in-time' | 'racing' | 'late' | 'duplicate';
}

/** What a seed with trips adds: which orders are trips, the signals, the agents of the trip services. */
export interface TripPlan {
  signals: SimSignal[];
  /** Agents per trip service (flight, hotel). */
  instances: { flight: number; hotel: number };
  /** Extra operator cancels aimed at a trip's wait or signal step (order index, virtual ms). */
  cancels: { order: number; atMs: number }[];
}

/**
 * Mixed into the seed for the trips' own random stream: a seed without trips (and the run's own
 * stream of every seed) replays exactly as before trips existed. 5 × the golden ratio constant,
 * the first multiple that leaves the seeds of regression-seeds.test.ts without trips, so they
 * still reach their bugs.
 */
const TRIP_STREAM = 0x1715609d;

/** The part of an order the trip plan rewrites. */
interface TripOrder {
  orderId: string;
  workflow: string;
  payload: JsonObject;
  submitAtMs: number;
}

/**
 * Six seeds in ten carry trips: about seven orders in ten of such a seed become trips of one of
 * the three trip workflows, each with the signals the application sends for it (some early, in
 * time, racing the timeout, late, duplicated, a second distinct one, one of a name no step waits for)
 * and, now and then, an operator cancel timed for its wait. Returns null for a seed without trips.
 */
export function drawTrips(seed: number, orders: TripOrder[], start: number, hasCancel: (order: number) => boolean): TripPlan | null {
  const rng = seededRandom(seed ^ TRIP_STREAM);
  if (!rng.chance(0.6)) return null;
  const plan: TripPlan = { signals: [], instances: { flight: rng.int(1, 2), hotel: rng.int(1, 2) }, cancels: [] };
  orders.forEach((order, index) => {
    if (!rng.chance(0.7)) return;
    const workflow = rng.pick([TRIP_WORKFLOWS.strict, TRIP_WORKFLOWS.strict, TRIP_WORKFLOWS.lenient, TRIP_WORKFLOWS.manual] as const);
    order.workflow = workflow;
    order.payload = tripPayload(rng, workflow, start + order.submitAtMs);
    plan.signals.push(...drawSignals(rng, workflow, index, order));
    if (!hasCancel(index) && rng.chance(0.12)) plan.cancels.push({ order: index, atMs: order.submitAtMs + rng.int(1_000, TRIP_SIGNAL_TIMEOUT_MS + 5_000) });
  });
  return plan;
}

function tripPayload(rng: SeededRandom, workflow: TripWorkflow, submitAt: number): JsonObject {
  const refuse = rng.chance(0.1) ? rng.pick(['flight', 'hotel', 'payment']) : undefined;
  return {
    traveller: `t-${rng.int(1, 9)}`,
    dayTrip: workflow !== TRIP_WORKFLOWS.lenient && rng.chance(0.4),
    flightPrice: rng.int(50, 400),
    hotelPrice: rng.int(50, 400),
    // The lenient trip holds the fare until this instant (RFC 3339), a few seconds after submission.
    holdUntil: new Date(submitAt + rng.int(0, 20_000)).toISOString(),
    ...(refuse ? { refuse } : {}),
  };
}

function drawSignals(rng: SeededRandom, workflow: TripWorkflow, order: number, trip: TripOrder): SimSignal[] {
  const signals: SimSignal[] = [];
  const send = (timing: SimSignal['timing'], atMs: number, name = 'confirm'): SimSignal => {
    const signalId = `${trip.orderId}.s${signals.length + 1}`;
    const signal: SimSignal = { order, signalId, name, data: { express: rng.chance(0.3), signalId }, atMs, timing };
    signals.push(signal);
    return signal;
  };
  const distinct = workflow === TRIP_WORKFLOWS.manual ? rng.pick([1, 2, 2, 3]) : rng.chance(0.15) ? 0 : rng.chance(0.15) ? 2 : 1;
  for (let i = 0; i < distinct; i++) {
    const timing = rng.pick(['early', 'in-time', 'in-time', 'in-time', 'racing', 'late'] as const);
    const at =
      timing === 'early'
        ? trip.submitAtMs + rng.int(0, 300)
        : timing === 'in-time'
          ? trip.submitAtMs + rng.int(500, 12_000)
          : timing === 'racing'
            ? trip.submitAtMs + TRIP_SIGNAL_TIMEOUT_MS + rng.int(-1_500, 1_500)
            : trip.submitAtMs + TRIP_SIGNAL_TIMEOUT_MS + rng.int(3_000, 20_000);
    const first = send(timing, at);
    // The same signal sent again (a retried send, a double click): the same id and data.
    if (rng.chance(0.3)) signals.push({ ...first, atMs: first.atMs + rng.int(0, 5_000), timing: 'duplicate' });
  }
  // A signal of a name no step waits for: kept with the process, never a step's result.
  if (rng.chance(0.1)) send('in-time', trip.submitAtMs + rng.int(0, 10_000), 'change-seat');
  return signals;
}
