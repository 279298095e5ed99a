import { everyoneLeads } from '@sas/testkit';
import type { SweepLease } from './sweep-lease';
import { COMPLETE_BY_MS, SWEEP_INTERVAL_MS, SupervisorHarness } from './test-support/supervisor-harness';

describe('Supervisor with a standby sharing its store and lease', () => {
  let h: SupervisorHarness;
  beforeEach(() => {
    h = new SupervisorHarness();
  });
  afterEach(() => h.closeAll());

  it('lets only the lease holder sweep, and recovers an expired process once', async () => {
    const held = await h.held();
    h.clock.t += COMPLETE_BY_MS;
    const [a, b] = await Promise.all([
      h.supervisor('supervisor-a').sweep(),
      h.supervisor('supervisor-b').sweep(),
    ]);

    expect(a).toEqual({ leader: true, recovered: 1, skipped: 0, delivered: 0 });
    expect(b).toEqual({ leader: false, recovered: 0, skipped: 0, delivered: 0 });
    expect(await h.doc()).toMatchObject({
      state: 'Pending',
      failureCount: 1,
      attempt: held.attempt + 1,
      lockedBy: null,
    });
    expect((await h.store.history('p-1')).map((e) => e.who)).toEqual(['scheduler-1', 'supervisor-a']);
  });

  it('leaves a process alone while its complete-by has not passed', async () => {
    const held = await h.held();
    h.clock.t += COMPLETE_BY_MS - 1;

    expect(await h.supervisor('supervisor-a').sweep()).toEqual({ leader: true, recovered: 0, skipped: 0, delivered: 0 });
    expect(await h.doc()).toEqual(held);
  });

  it('hands the sweep to the standby at once when the holder closes', async () => {
    const a = h.supervisor('supervisor-a');
    const b = h.supervisor('supervisor-b');
    expect((await a.sweep()).leader).toBe(true);
    expect((await b.sweep()).leader).toBe(false);
    await a.close();
    await h.held();
    h.clock.t += COMPLETE_BY_MS;

    expect(await a.sweep()).toEqual({ leader: false, recovered: 0, skipped: 0, delivered: 0 });
    expect(await b.sweep()).toEqual({ leader: true, recovered: 1, skipped: 0, delivered: 0 });
    expect(b.metrics()).toMatchObject({ leader: 1, recovered: 1 });
  });

  it('lets the standby take over once a crashed holder’s lease expires', async () => {
    const a = h.supervisor('supervisor-a');
    const b = h.supervisor('supervisor-b');
    await a.sweep();
    // supervisor-a stops sweeping without closing, as a crash would; its lease lasts 3 sweep intervals.
    h.clock.t += 3 * SWEEP_INTERVAL_MS - 1;
    expect((await b.sweep()).leader).toBe(false);
    h.clock.t += 1;
    expect((await b.sweep()).leader).toBe(true);
  });

  it('recovers an expired process once even when two supervisors both believe they lead', async () => {
    await h.held();
    h.clock.t += COMPLETE_BY_MS;
    const reports = await Promise.all([
      h.supervisor('supervisor-a', everyoneLeads).sweep(),
      h.supervisor('supervisor-b', everyoneLeads).sweep(),
    ]);

    expect(reports.map((r) => r.recovered).sort()).toEqual([0, 1]);
    expect(reports.map((r) => r.skipped).sort()).toEqual([0, 1]);
    expect(await h.doc()).toMatchObject({ state: 'Pending', failureCount: 1, attempt: 2 });
    expect(await h.store.history('p-1')).toHaveLength(2);
  });
});

describe('Supervisor closing', () => {
  let h: SupervisorHarness;
  beforeEach(() => {
    h = new SupervisorHarness();
  });
  afterEach(() => h.closeAll());

  it('gives the lease up before any close() call resolves, a repeated one included', async () => {
    const released: string[] = [];
    const slowLease: SweepLease = {
      acquire: (name, holder, now, ttlMs) => h.lease.acquire(name, holder, now, ttlMs),
      // Releasing takes a round trip, as it does against MongoDB.
      release: async (name, holder) => {
        await new Promise((resolve) => setImmediate(resolve));
        await h.lease.release(name, holder);
        released.push(holder);
      },
    };
    const supervisor = h.supervisor('supervisor-a', slowLease);
    await supervisor.sweep();
    const first = supervisor.close();
    await supervisor.close();

    expect(released).toEqual(['supervisor-a']);
    await first;
    expect(released).toEqual(['supervisor-a']);
  });

  it('does nothing once closed', async () => {
    await h.held();
    const supervisor = h.supervisor('supervisor-a');
    await supervisor.close();
    h.clock.t += COMPLETE_BY_MS;

    expect(await supervisor.sweep()).toEqual({ leader: false, recovered: 0, skipped: 0, delivered: 0 });
    expect(await h.doc()).toMatchObject({ state: 'Processing' });
  });
});
