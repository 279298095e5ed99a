import { ProbeServer, createMetricsRegistry } from '@sas/runtime';
import { scrapeMetrics } from '@sas/testkit';
import { PromSupervisorMetrics } from './prom-supervisor-metrics';

describe("the supervisor's /metrics", () => {
  const registry = createMetricsRegistry();
  const metrics = new PromSupervisorMetrics(registry);
  const counters = { sweeps: 0, recovered: 0, leader: 0, delivered: 0, quarantined: 0, errors: 0 };
  metrics.countersOf({ metrics: () => ({ ...counters }) });
  const probe = new ProbeServer({ ready: () => true, registry });
  let url = '';

  beforeAll(async () => {
    url = `http://127.0.0.1:${await probe.start(0, '127.0.0.1')}/metrics`;
  });
  afterAll(() => probe.close());

  it('counts recoveries by workflow and action', async () => {
    expect((await scrapeMetrics(url)).family('sas_supervisor_recoveries_total')).toMatchObject({ type: 'counter', series: [] });
    metrics.recovered('order-fulfilment', 'retry');
    metrics.recovered('order-fulfilment', 'retry');
    metrics.recovered('order-fulfilment', 'compensate');
    const page = await scrapeMetrics(url);
    expect(page.total('sas_supervisor_recoveries_total', { workflow: 'order-fulfilment', action: 'retry' })).toBe(2);
    expect(page.total('sas_supervisor_recoveries_total', { workflow: 'order-fulfilment', action: 'compensate' })).toBe(1);
  });

  it("reads the supervisor's sweep counters and leadership at every scrape", async () => {
    Object.assign(counters, { sweeps: 4, delivered: 1, errors: 2, leader: 1 });
    const page = await scrapeMetrics(url);
    expect(page.total('sas_supervisor_sweeps_total')).toBe(4);
    expect(page.total('sas_supervisor_outboxes_delivered_total')).toBe(1);
    expect(page.total('sas_supervisor_recovery_errors_total')).toBe(2);
    expect(page.total('sas_supervisor_quarantined_total')).toBe(0);
    expect(page.family('sas_supervisor_leader')).toMatchObject({ type: 'gauge', series: [{ labels: {}, value: 1 }] });
  });
});
