import { QueueNames, type AgentReply, type AgentRequest } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { ProbeServer, createMetricsRegistry } from '@sas/runtime';
import { InMemoryProcessStore } from '@sas/store';
import { ManualClock, RecordingOutbox, scrapeMetrics } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentV1 } from '@sas/workflow';
import { pino } from 'pino';
import { registerJobRunnerCounters } from './job-runner-counters';
import { PromSchedulerMetrics } from './prom-scheduler-metrics';
import { Scheduler } from './scheduler';

const T0 = Date.UTC(2030, 0, 1);
const logger = pino({ level: 'silent' });

function okReply(request: AgentRequest, at: number): AgentReply {
  const { processId, step, stepIndex, mode, attempt, agent } = request;
  return { schemaVersion: 1, processId, step, stepIndex, mode, attempt, agent, agentInstance: `${agent}-1`, at, outcome: 'ok', result: {} };
}

describe("the scheduler's /metrics", () => {
  const clock = new ManualClock(T0);
  const outbox = new RecordingOutbox();
  const store = new InMemoryProcessStore();
  const registry = createMetricsRegistry();
  const metrics = new PromSchedulerMetrics(registry);
  const scheduler = new Scheduler({
    engine: new ProcessEngine({ store, outbox, registry: new WorkflowRegistry(builtInWorkflows), clock, who: 's-1', replyQueue: QueueNames.schedulerReplies, logger }),
    store,
    clock,
    logger,
    pollIntervalMs: 0,
    metrics,
  });
  metrics.countersOf(scheduler);
  const jobCounts = { fired: 0, failed: 0, retrying: 0, lost: 0, late: 0, jobLeader: 0 };
  registerJobRunnerCounters(registry, { metrics: () => ({ ...jobCounts }) });
  const probe = new ProbeServer({ ready: () => true, registry });
  let url = '';

  beforeAll(async () => {
    url = `http://127.0.0.1:${await probe.start(0, '127.0.0.1')}/metrics`;
  });
  afterAll(() => probe.close());

  it('exposes the step duration histogram, labelled, once a reply is applied', async () => {
    const before = await scrapeMetrics(url);
    expect(before.family('sas_step_duration_seconds')).toMatchObject({ type: 'histogram', series: [] });
    expect(before.family('sas_step_duration_seconds').help).toMatch(/first dispatch/);

    const doc = createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: null, workflow: orderFulfilmentV1, now: clock.t });
    await store.insert(doc);
    await scheduler.claimAvailable();
    const [request] = outbox.take((s) => s.queue.startsWith('agent.')).map((s) => s.message as AgentRequest);
    clock.t += 1500;
    expect((await scheduler.onReply(okReply(request!, clock.t))).kind).toBe('applied');

    const after = await scrapeMetrics(url);
    const labels = { workflow: 'order-fulfilment', step: 'reserve-inventory', agent: 'inventory', mode: 'forward', outcome: 'ok' };
    expect(after.series('sas_step_duration_seconds', labels)).toEqual([
      expect.objectContaining({ labels, value: 1, sum: 1.5, buckets: expect.objectContaining({ '1': 0, '2.5': 1, '+Inf': 1 }) }),
    ]);
    expect(after.family('sas_scheduler_claims_total')).toMatchObject({ type: 'counter', series: [{ labels: {}, value: 1 }] });
    expect(after.total('sas_scheduler_replies_total')).toBe(1);
    expect(after.total('sas_scheduler_stale_replies_total')).toBe(0);
  });

  it("reads the job runner's firings by outcome, late ones and leadership at every scrape", async () => {
    expect((await scrapeMetrics(url)).total('sas_job_firings_total', { outcome: 'fired' })).toBe(0);
    Object.assign(jobCounts, { fired: 3, late: 1, retrying: 2, jobLeader: 1 });
    const page = await scrapeMetrics(url);
    expect(page.family('sas_job_firings_total').type).toBe('counter');
    expect(page.series('sas_job_firings_total').map((s) => [s.labels['outcome'], s.value])).toEqual([
      ['fired', 3],
      ['failed', 0],
      ['retrying', 2],
      ['lost', 0],
      ['skipped', 0],
    ]);
    expect(page.total('sas_job_late_firings_total')).toBe(1);
    expect(page.family('sas_job_runner_leader')).toMatchObject({ type: 'gauge', series: [{ labels: {}, value: 1 }] });
  });

  it('keeps the default process metrics in its own registry', async () => {
    const page = await scrapeMetrics(url);
    expect(page.family('process_cpu_user_seconds_total').type).toBe('counter');
    expect(page.family('nodejs_heap_size_used_bytes').type).toBe('gauge');
  });
});
