import { SasClient } from '@sas/client';
import type { ProcessDocument, SignalResult } from '@sas/contracts';
import {
  forwardCallsAfterUndo,
  kindOf,
  repeatedDispatches,
  repeatedEffects,
  undosBeforeForward,
  undosBeforeForwardAnswered,
  unundoneEffects,
} from '../support/ledger-checks';
import { plainArrivals, withPlainRemote } from '../support/remote-arrivals';
import { SystemFixture } from '../support/system-fixture';
import { callsTo } from '../support/trip-checks';
import { TRIP_TEST_TIMEOUT_MS, tripBookingForTest, tripRoleEnv, tripUndoPairs } from '../support/trip-workflows';

/**
 * The trip-booking flow of docs/flows.md with real processes: flight and hotel booked in parallel
 * (the hotel skipped for a day trip by a condition), a `confirm` signal awaited with a timeout that
 * compensates, a cooling-off wait skipped for an express confirmation, then the charge. A scheduler
 * and a flight agent are killed (kill -9) while bookings are in flight. remote-sim runs `plain`, so
 * the ledgers show what the engine did, not what the remote refused on its behalf.
 */
describe('the trip-booking flow with kill -9 of a scheduler and an agent', () => {
  let fx: SystemFixture;
  let client: SasClient;

  beforeAll(async () => {
    fx = await SystemFixture.start('trip-booking', { schedulers: 2, supervisors: 1, agents: { flight: 2, hotel: 1, payment: 1 } }, withPlainRemote(tripRoleEnv()));
    client = new SasClient({ redisUrl: fx.stack.env['REDIS_URL'] ?? '', prefix: fx.stack.queuePrefix, replyTo: 'trip.status' });
  });
  afterAll(async () => {
    await client?.close();
    await fx?.stop();
  });

  const trip = (orderId: string, dayTrip: boolean): ReturnType<SystemFixture['order']> =>
    fx.order(orderId, { workflow: 'trip-booking', payload: { traveller: `traveller-${orderId}`, dayTrip, amount: 19_900 } });
  const confirm = (orderId: string, express: boolean): Promise<SignalResult> => client.signal(orderId, 'confirm', { express }, { timeoutMs: 30_000 });
  const docOf = async (orderId: string): Promise<ProcessDocument | undefined> => (await fx.processes({ orderId }))[0];

  it('processes confirmed trips, never calls the hotel for a day trip, compensates unconfirmed trips after the timeout, one effect per step', async () => {
    const confirmedEarly = ['trip-early-1', 'trip-early-2', 'trip-early-3'];
    const confirmedLate = ['trip-late-1', 'trip-late-2', 'trip-late-3'];
    const dayTrips = ['day-1', 'day-2', 'day-3', 'day-4'];
    const unconfirmed = ['trip-silent-1', 'trip-silent-2', 'day-silent-1'];
    // The hotel refuses this one (full): the group fails with the flight booked or in flight.
    const hotelFull = 'trip-full-1';
    const confirmed = [...confirmedEarly, ...confirmedLate, ...dayTrips];
    const compensated = [...unconfirmed, hotelFull];
    const all = [...confirmed, ...compensated];
    const days = new Set([...dayTrips, 'day-silent-1']);

    // Flight bookings take effect at once but their answers are held: the bookings are in flight
    // when the agent and the scheduler die, however slowly this machine gets to the kills.
    await fx.setFaults('flight', { holdOperations: ['book'] });
    await fx.setFaults('hotel', { permanentFailOrders: [hotelFull] });
    await fx.submit(all.map((id) => trip(id, days.has(id))));
    await fx.stack.waitFor(
      async () => (await plainArrivals(fx, all)).filter((a) => kindOf(a) === 'flight.book' && a.answeredAt === undefined).length >= 4,
      { timeoutMs: 30_000, description: 'flight bookings held at the remote, their agents waiting' },
    );

    await fx.stack.waitFor(async () => (await fx.processes({ orderId: { $in: all } })).length === all.length, {
      timeoutMs: 30_000,
      description: 'a process for every trip',
    });
    // A confirmation sent before its step comes up is kept and used when the step does.
    for (const id of confirmedEarly) expect(await confirm(id, false)).toMatchObject({ ok: true, outcome: 'kept' });
    // Sent again (a retried send): answered as the first one, applied once.
    expect(await confirm(confirmedEarly[0] as string, false)).toMatchObject({ ok: true, outcome: 'repeat' });

    // Every flight agent dies, so each booking in flight can only finish through recovery (its
    // job stays locked to a dead agent far past the member's complete-by), and one scheduler dies.
    const flightAgents = fx.system.byRole('agent-flight').filter((p) => p.running);
    const [scheduler] = fx.system.byRole('scheduler').filter((p) => p.running);
    await Promise.all([...flightAgents.map((a) => a.kill('SIGKILL')), scheduler!.kill('SIGKILL')]);
    await fx.setFaults('flight', {});
    await fx.remote('/admin/release/flight', { method: 'POST' });
    await Promise.all([fx.system.spawn('agent-flight'), fx.system.spawn('agent-flight'), scheduler!.restart()]);

    // The other confirmations once their step waits: consumed at once. Two day trips are express.
    const pending = new Set([...confirmedLate, ...dayTrips]);
    const answers: [string, boolean, string][] = [];
    await fx.stack.waitFor(
      async () => {
        for (const id of [...pending]) {
          const doc = await docOf(id);
          if (doc?.steps.find((s) => s.name === 'confirm')?.state !== 'Running') continue;
          const answer = await confirm(id, id === 'day-1' || id === 'day-2');
          answers.push([id, answer.ok, answer.outcome]);
          pending.delete(id);
        }
        return pending.size === 0;
      },
      { timeoutMs: 60_000, intervalMs: 200, description: 'every late confirmation sent while its step waits' },
    );
    // Consumed at once by the step waiting for it.
    for (const [id, ok, outcome] of answers) expect([id, ok, outcome]).toEqual([id, true, 'consumed']);

    const done = await fx.waitForStates(confirmed, ['Processed'], 90_000);
    const undone = await fx.waitForStates(compensated, ['Compensated'], 90_000);

    const workflow = tripBookingForTest();
    const undoOf = tripUndoPairs(workflow);
    const ledger = (await fx.ledger()).filter((e) => all.includes(e.orderId));
    const arrivals = await plainArrivals(fx, all);
    // Every check over the remotes' ledgers at once, so a failure shows each one that broke.
    expect({
      // At most one effect per step, no step and attempt dispatched twice.
      repeatedEffects: repeatedEffects(ledger),
      repeatedDispatches: repeatedDispatches(arrivals),
      // A day trip never called the hotel, not even to undo.
      hotelCallsOfDayTrips: callsTo(arrivals, [...days], 'hotel'),
      // Every effect of a compensated trip undone (flight and hotel: members of one group), none before its call.
      unundoneEffects: unundoneEffects(ledger, compensated, undoOf),
      undosBeforeForward: undosBeforeForward(ledger, undoOf),
      undosBeforeForwardAnswered: undosBeforeForwardAnswered(arrivals),
      forwardCallsAfterUndo: forwardCallsAfterUndo(arrivals),
    }).toEqual({ repeatedEffects: [], repeatedDispatches: [], hotelCallsOfDayTrips: [], unundoneEffects: [], undosBeforeForward: [], undosBeforeForwardAnswered: [], forwardCallsAfterUndo: [] });
    // Not vacuous: each confirmed trip took exactly its bookings and its charge; nothing was charged unconfirmed.
    for (const id of confirmed) {
      const kinds = ledger.filter((e) => e.orderId === id).map(kindOf).sort();
      expect([id, kinds]).toEqual([id, days.has(id) ? ['flight.book', 'payment.charge'] : ['flight.book', 'hotel.book', 'payment.charge']]);
    }
    for (const id of unconfirmed) {
      const kinds = ledger.filter((e) => e.orderId === id).map(kindOf).sort();
      expect([id, kinds]).toEqual([id, days.has(id) ? ['flight.book', 'flight.cancel'] : ['flight.book', 'flight.cancel', 'hotel.book', 'hotel.cancel']]);
    }
    // The refused hotel took no effect (its undo, if any, found nothing); the flight was booked and cancelled.
    expect(ledger.filter((e) => e.orderId === hotelFull && e.service === 'flight').map(kindOf).sort()).toEqual(['flight.book', 'flight.cancel']);
    expect(ledger.filter((e) => e.orderId === hotelFull).map(kindOf)).not.toContain('hotel.book');
    // The kill hit bookings in flight: some flight booking was sent again under a later attempt.
    expect(arrivals.some((a) => kindOf(a) === 'flight.book' && (a.attempt ?? 0) > 1)).toBe(true);

    // An unconfirmed trip was compensated only after the timeout: its confirm step waited that long.
    for (const doc of undone.filter((d) => unconfirmed.includes(d.orderId))) {
      const step = doc.steps.find((s) => s.name === 'confirm');
      expect(step?.startedAt).toBeInstanceOf(Date);
      expect(doc.updatedAt.getTime() - (step?.startedAt as Date).getTime()).toBeGreaterThanOrEqual(TRIP_TEST_TIMEOUT_MS);
    }
    // The day trips skipped the group (both members) and, when express, the cooling-off.
    for (const doc of done) {
      const state = (name: string): string | undefined => doc.steps.find((s) => s.name === name)?.state;
      const day = days.has(doc.orderId);
      expect([doc.orderId, state('book-flight'), state('book-hotel'), state('book-day-flight')]).toEqual(
        day ? [doc.orderId, 'Skipped', 'Skipped', 'Completed'] : [doc.orderId, 'Completed', 'Completed', 'Skipped'],
      );
      expect([doc.orderId, state('cooling-off')]).toEqual([doc.orderId, doc.orderId === 'day-1' || doc.orderId === 'day-2' ? 'Skipped' : 'Completed']);
    }


    // A confirmation that comes after the trip was undone is refused, and changes nothing.
    const late = await confirm('trip-silent-1', false);
    expect(late).toMatchObject({ ok: false, outcome: 'refused' });
    expect((await docOf('trip-silent-1'))?.state).toBe('Compensated');
  }, 300_000);

  it('keeps waiting trips through a kill -9 of every scheduler: a confirmation after the restart completes them, a timeout still compensates', async () => {
    const waiting = ['durable-1', 'durable-2'];
    const silent = 'durable-silent-1';
    const ids = [...waiting, silent];
    await fx.submit(ids.map((id) => trip(id, false)));
    await fx.stack.waitFor(
      async () => {
        const docs = await fx.processes({ orderId: { $in: ids } });
        return docs.length === ids.length && docs.every((d) => d.steps.find((s) => s.name === 'confirm')?.state === 'Running');
      },
      { timeoutMs: 30_000, description: 'every trip waiting for its confirmation' },
    );
    // The wait is document state: with no scheduler alive nothing holds it in memory.
    const schedulers = fx.system.byRole('scheduler').filter((p) => p.running);
    await Promise.all(schedulers.map((s) => s.kill('SIGKILL')));
    await Promise.all(schedulers.map((s) => s.restart()));
    for (const id of waiting) expect([id, (await confirm(id, true)).outcome]).toEqual([id, 'consumed']);
    await fx.waitForStates(waiting, ['Processed'], 60_000);
    const [undone] = await fx.waitForStates([silent], ['Compensated'], 60_000);
    const step = undone?.steps.find((s) => s.name === 'confirm');
    expect((undone?.updatedAt.getTime() ?? 0) - (step?.startedAt?.getTime() ?? Infinity)).toBeGreaterThanOrEqual(TRIP_TEST_TIMEOUT_MS);
    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(unundoneEffects(ledger, [silent], tripUndoPairs(tripBookingForTest()))).toEqual([]);
    for (const id of waiting) expect([id, ledger.filter((e) => e.orderId === id).map(kindOf).sort()]).toEqual([id, ['flight.book', 'hotel.book', 'payment.charge']]);
  }, 180_000);
});
