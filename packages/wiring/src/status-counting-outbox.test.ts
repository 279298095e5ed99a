import { ProbeServer, createMetricsRegistry } from '@sas/runtime';
import { RecordingOutbox, scrapeMetrics } from '@sas/testkit';
import { StatusCountingOutbox } from './status-counting-outbox';

describe('the outbox that counts status events', () => {
  it('passes every message on and counts only status events, by status', async () => {
    const registry = createMetricsRegistry();
    const inner = new RecordingOutbox();
    const outbox = new StatusCountingOutbox(inner, registry);
    const probe = new ProbeServer({ ready: () => true, registry });
    const url = `http://127.0.0.1:${await probe.start(0, '127.0.0.1')}/metrics`;
    try {
      await outbox.send('app.status', { schemaVersion: 1, orderId: 'o-1', status: 'Received', at: 1 }, { jobId: 'e-1' });
      await outbox.send('app.status', { schemaVersion: 1, orderId: 'o-1', status: 'Processed', at: 2 });
      await outbox.send('app.status', { schemaVersion: 1, orderId: 'o-2', status: 'Processed', at: 3 });
      await outbox.send('scheduler.ready', { schemaVersion: 1, reason: 'submitted' });
      expect(inner.sent.map((s) => s.queue)).toEqual(['app.status', 'app.status', 'app.status', 'scheduler.ready']);

      const page = await scrapeMetrics(url);
      expect(page.family('sas_status_events_sent_total')).toMatchObject({ type: 'counter', help: expect.stringMatching(/by status/) });
      expect(page.series('sas_status_events_sent_total').map((s) => [s.labels['status'], s.value])).toEqual([
        ['Received', 1],
        ['Processed', 2],
      ]);
    } finally {
      await probe.close();
    }
  });

  it("passes the inner outbox's replica check on, so a cluster's deliveries still wait for a replica", async () => {
    const check = { confirmed: () => Promise.resolve(true) };
    const asked: string[][] = [];
    const inner = { send: () => Promise.resolve(), replicaCheck: (queues: readonly string[]) => (asked.push([...queues]), check) };
    const outbox = new StatusCountingOutbox(inner, createMetricsRegistry());

    expect(outbox.replicaCheck(['app.status'])).toBe(check);
    expect(asked).toEqual([['app.status']]);
    expect(new StatusCountingOutbox(new RecordingOutbox(), createMetricsRegistry()).replicaCheck(['app.status'])).toBeUndefined();
  });
});
