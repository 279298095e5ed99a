import { CallStats } from './call-stats';
import { RemoteSim } from './remote-sim';
import { seededRandom } from './seeded-random';

describe('CallStats', () => {
  it('starts with every service, operation and outcome at zero and the start time', () => {
    const stats = new CallStats(1234).snapshot();
    expect(stats.since).toBe(1234);
    expect(stats.total).toBe(0);
    expect(Object.keys(stats.services)).toEqual(['payment', 'inventory', 'shipping', 'flight', 'hotel']);
    expect(Object.keys(stats.services.shipping.operations)).toEqual(['create', 'cancel']);
    expect(stats.services.inventory.operations['release']).toEqual({
      ok: 0,
      replayed: 0,
      error503: 0,
      outage: 0,
      lost: 0,
      hang: 0,
      permanent: 0,
      conflict: 0,
      tombstoned: 0,
      'bad-request': 0,
    });
  });

  it('counts per operation and outcome, per service and overall', () => {
    const stats = new CallStats(0);
    stats.count('payment', 'charge', 'ok');
    stats.count('payment', 'charge', 'outage');
    stats.count('payment', 'refund', 'ok');
    stats.count('shipping', 'create', 'hang');
    const snap = stats.snapshot();
    expect(snap.total).toBe(4);
    expect(snap.services.payment.total).toBe(3);
    expect(snap.services.payment.outcomes).toMatchObject({ ok: 2, outage: 1 });
    expect(snap.services.payment.operations['charge']).toMatchObject({ ok: 1, outage: 1 });
    expect(snap.services.shipping.outcomes.hang).toBe(1);
    expect(snap.services.inventory.total).toBe(0);
  });

  it('hands out snapshots that later calls do not change', () => {
    const stats = new CallStats(0);
    const before = stats.snapshot();
    stats.count('payment', 'charge', 'ok');
    expect(before.total).toBe(0);
  });

  it('starts again from zero on reset', () => {
    const stats = new CallStats(0);
    stats.count('payment', 'charge', 'ok');
    stats.reset(99);
    expect(stats.snapshot()).toMatchObject({ since: 99, total: 0 });
  });
});

describe('RemoteSim stats', () => {
  it('counts each call a service receives during an outage, so a retry storm would show', () => {
    let now = 0;
    const sim = new RemoteSim({ clock: { now: () => now }, random: seededRandom(1) });
    sim.setFaults('inventory', {
      errorRate: 0,
      lostReplyRate: 0,
      latencyMs: 0,
      hang: false,
      outageUntil: 10_000,
      permanentFailOrders: [],
      permanentFailOperations: [],
      holdOperations: [],
    });
    for (let i = 0; i < 3; i++) {
      sim.call({ service: 'inventory', operation: 'reserve', idempotencyKey: 'k', body: { orderId: 'o', payload: {} } });
    }
    now = 10_000;
    sim.call({ service: 'inventory', operation: 'reserve', idempotencyKey: 'k', body: { orderId: 'o', payload: {} } });
    const stats = sim.stats();
    expect(stats.since).toBe(0);
    expect(stats.services.inventory.total).toBe(4);
    expect(stats.services.inventory.operations['reserve']).toMatchObject({ outage: 3, ok: 1 });
  });
});
