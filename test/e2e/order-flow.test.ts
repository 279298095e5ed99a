import { SasClient } from '@sas/client';
import { SCHEMA_VERSION } from '@sas/contracts';
import { REDIS_TOPOLOGIES, scrapeMetrics, type MetricsScrape } from '@sas/testkit';
import { repeatedEffects } from '../support/ledger-checks';
import { SystemFixture } from '../support/system-fixture';

const ORDERS = 50;

describe.each(REDIS_TOPOLOGIES)('orders flowing through every service as its own process (%s Redis)', (redisTopology) => {
  let fx: SystemFixture;
  const ids = Array.from({ length: ORDERS }, (_, i) => `order-${String(i).padStart(3, '0')}`);

  beforeAll(async () => {
    // Every role serves /metrics: the probe port picked free, the dashboard on its own port. The
    // dashboard leaves the alerts queue to this test's collector.
    const probes = { PROBE_PORT: '0' };
    fx = await SystemFixture.start('order-flow', { schedulers: 1, supervisors: 1, dashboard: 1 }, {
      scheduler: probes,
      supervisor: probes,
      submission: probes,
      agent: probes,
      dashboard: { ALERTS_CONSUME: 'false' },
    }, { redisTopology });
  });
  afterAll(() => fx?.stop());

  /** Scrapes the `/metrics` of the first process of a role, at the port its ready line names. */
  async function scrape(role: Parameters<SystemFixture['system']['byRole']>[0]): Promise<MetricsScrape> {
    const proc = fx.system.byRole(role)[0];
    const ready = proc?.lines.find((l) => l.json?.['probePort'] !== undefined || l.json?.['msg'] === 'dashboard ready');
    const base = role === 'dashboard' ? String(ready?.json?.['url']) : `http://127.0.0.1:${String(ready?.json?.['probePort'])}`;
    return scrapeMetrics(`${base}/metrics`);
  }

  it('processes 50 orders with exactly one remote effect per step and one status stream per order', async () => {
    await fx.submit(ids.map((id) => fx.order(id)));
    const docs = await fx.waitForStates(ids, ['Processed'], 90_000);
    expect(docs).toHaveLength(ORDERS);
    for (const d of docs) {
      expect(d.steps.map((s) => s.state)).toEqual(['Completed', 'Completed', 'Completed']);
      expect(d.lockedBy).toBeNull();
      expect(d.deleteTime).toBeInstanceOf(Date);
    }

    const ledger = await fx.ledger();
    for (const id of ids) {
      const effects = ledger.filter((e) => e.orderId === id);
      expect(effects.map((e) => `${e.service}.${e.operation}`).sort()).toEqual(['inventory.reserve', 'payment.charge', 'shipping.create']);
    }
    expect(repeatedEffects(ledger)).toEqual([]);

    // Results flow forward: the shipment was created with the reservation and the charge it follows.
    for (const id of ids) {
      const effect = (operation: string) => ledger.find((e) => e.orderId === id && e.operation === operation);
      expect(effect('create')?.inputs).toEqual({
        'reserve-inventory': expect.objectContaining({ effectId: effect('reserve')?.effectId }),
        'charge-payment': expect.objectContaining({ effectId: effect('charge')?.effectId }),
      });
      expect(effect('reserve')?.inputs).toEqual({});
    }

    await fx.stack.waitFor(() => ids.every((id) => fx.statusesOf(id).includes('Processed')), {
      timeoutMs: 10_000,
      description: 'a Processed status for every order',
    });
    for (const id of ids) {
      expect(fx.statusesOf(id)).toEqual(['Received', 'Processing', 'StepCompleted', 'StepCompleted', 'StepCompleted', 'Processed']);
    }
  });

  it('exposes the key series on every role’s /metrics once the orders are done', async () => {
    const stepsDone = ORDERS * 3;
    const forwardOk = { workflow: 'order-fulfilment', mode: 'forward', outcome: 'ok' };
    // Counters move just after the state they count is written: wait for them, with a deadline.
    const scheduler = await fx.stack.waitFor(
      async () => {
        const page = await scrape('scheduler');
        return page.total('sas_step_duration_seconds', forwardOk) >= stepsDone && page.total('sas_status_events_sent_total', { status: 'Processed' }) >= ORDERS ? page : null;
      },
      { timeoutMs: 15_000, description: 'the scheduler to count every step and every Processed status' },
    );
    expect(scheduler.family('sas_step_duration_seconds').type).toBe('histogram');
    for (const [step, agent] of [['reserve-inventory', 'inventory'], ['charge-payment', 'payment'], ['create-shipment', 'shipping']] as const) {
      const [series] = scheduler.series('sas_step_duration_seconds', { ...forwardOk, step, agent });
      expect(series?.value).toBeGreaterThanOrEqual(ORDERS);
      expect(series?.sum).toBeGreaterThan(0);
      expect(series?.buckets?.['+Inf']).toBe(series?.value);
    }
    // A claim dispatches an order's first step; the later ones go out as the replies are applied.
    expect(scheduler.total('sas_scheduler_claims_total')).toBeGreaterThanOrEqual(ORDERS);
    expect(scheduler.total('sas_messages_handled_total', { queue: 'scheduler.replies' })).toBeGreaterThanOrEqual(stepsDone);
    expect(scheduler.family('process_resident_memory_bytes').type).toBe('gauge');

    const submission = await scrape('submission');
    expect(submission.total('sas_messages_handled_total', { queue: 'submission' })).toBeGreaterThanOrEqual(ORDERS);
    expect(submission.total('sas_status_events_sent_total', { status: 'Received' })).toBeGreaterThanOrEqual(ORDERS);
    expect(submission.family('sas_dead_letters_total').type).toBe('counter');

    for (const agent of ['inventory', 'payment', 'shipping']) {
      const page = await scrape(`agent-${agent}`);
      expect(page.total('sas_agent_requests_total', { agent, outcome: 'replied-ok' })).toBeGreaterThanOrEqual(ORDERS);
      expect(page.total('sas_agent_remote_calls_total', { agent })).toBeGreaterThanOrEqual(ORDERS);
      expect(page.family('sas_agent_retries_total').type).toBe('counter');
      expect(page.series('sas_agent_breaker_state', { agent }).map((s) => s.value)).toEqual([0]);
    }

    const supervisor = await fx.stack.waitFor(
      async () => {
        const page = await scrape('supervisor');
        return page.total('sas_supervisor_sweeps_total') > 0 ? page : null;
      },
      { timeoutMs: 15_000, description: 'the supervisor to have swept' },
    );
    expect(supervisor.family('sas_supervisor_recoveries_total').type).toBe('counter');
    expect(supervisor.total('sas_supervisor_leader')).toBe(1);

    const dashboard = await scrape('dashboard');
    expect(dashboard.family('sas_processes').type).toBe('gauge');
    expect(dashboard.total('sas_processes', { workflow: 'order-fulfilment', state: 'Processed' })).toBe(ORDERS);
    expect(dashboard.family('sas_queue_jobs').type).toBe('gauge');
    expect(dashboard.series('sas_queue_jobs', { queue: 'agent.payment.requests' }).map((s) => s.labels['state']).sort()).toEqual(['active', 'delayed', 'failed', 'prioritized', 'waiting']);
    expect(dashboard.total('sas_queue_jobs', { queue: 'submission', state: 'waiting' })).toBe(0);
  });

  it('answers the same submission sent again as the first time, never Duplicate', async () => {
    const again = ids.slice(0, 10);
    await fx.submit(again.map((id) => fx.order(id)));
    const answered = () =>
      fx.system
        .byRole('submission')
        .flatMap((s) => s.lines)
        .filter((l) => l.json?.['msg'] === 'same submission delivered again; answered as the first time')
        .map((l) => String(l.json?.['orderId']));
    await fx.stack.waitFor(() => again.every((id) => answered().includes(id)), {
      timeoutMs: 15_000,
      description: '10 resent orders answered as the first time',
    });
    expect(await fx.processes()).toHaveLength(ORDERS);
    expect(fx.statuses.messages.filter((m) => m.status === 'Duplicate')).toEqual([]);
    // The repeated Received carries the first one's eventId, so a receiver drops it as a repeat.
    for (const id of again) {
      const received = fx.statuses.messages.filter((m) => m.orderId === id && m.status === 'Received');
      expect(new Set(received.map((m) => m.eventId)).size).toBe(1);
    }
    expect((await fx.ledger()).length).toBe(ORDERS * 3);
  });

  it('answers a different submission under a taken orderId with Duplicate and creates nothing new', async () => {
    const taken = ids.slice(0, 10);
    await fx.submit(taken.map((id) => fx.order(id, { payload: { sku: 'kettle', quantity: 1, amount: 999 } })));
    await fx.stack.waitFor(() => taken.every((id) => fx.statusesOf(id).includes('Duplicate')), {
      timeoutMs: 15_000,
      description: 'Duplicate status for 10 orders resubmitted with another payload',
    });
    expect(await fx.processes()).toHaveLength(ORDERS);
    const dup = fx.statuses.messages.find((m) => m.status === 'Duplicate');
    expect(dup?.reason).toMatch(/already submitted/);
    expect((await fx.ledger()).length).toBe(ORDERS * 3);
  });

  describe('when a submission is bad', () => {
    it('rejects it to the sender and the dead-letter queue, and keeps serving valid orders', async () => {
      const bad = [
        { schemaVersion: SCHEMA_VERSION, workflow: 'order-fulfilment', payload: {}, replyTo: fx.replyTo }, // no orderId
        { ...fx.order('bad-types'), payload: 'not an object' },
        fx.order('bad-workflow', { workflow: 'no-such-workflow' }),
        fx.order('bad-size', { payload: { blob: 'x'.repeat(70 * 1024) } }),
        'just a string',
      ];
      await fx.submit(bad);
      await fx.submit([fx.order('good-after-bad')]);

      await fx.waitForStates(['good-after-bad'], ['Processed'], 30_000);
      const rejected = await fx.stack.waitFor(
        () => {
          const r = fx.statuses.messages.filter((m) => m.status === 'Rejected');
          return r.length >= 4 ? r : null;
        },
        { timeoutMs: 15_000, description: 'four Rejected statuses' },
      );
      const reasons = rejected.map((r) => `${r.orderId ?? '(none)'}: ${r.reason}`).join('\n');
      expect(reasons).toMatch(/\(none\): invalid message on submission: orderId: Required/);
      expect(reasons).toMatch(/bad-types: .*payload/);
      expect(reasons).toMatch(/bad-workflow: unknown workflow 'no-such-workflow'; known: order-fulfilment@1/);
      expect(reasons).toMatch(/bad-size: .*payload must be at most 65536 bytes/);

      const dead = await fx.stack.waitFor(
        async () => {
          const d = await fx.deadLetters();
          return d.length >= 5 ? d : null;
        },
        { timeoutMs: 15_000, description: 'five dead letters' },
      );
      expect(dead.map((d) => d['reason'])).toEqual(
        expect.arrayContaining([expect.stringMatching(/invalid message on submission/), expect.stringMatching(/unknown workflow/)]),
      );
      expect(dead.some((d) => d['original'] === 'just a string')).toBe(true);
      expect(await fx.processes({ orderId: { $in: ['bad-types', 'bad-workflow', 'bad-size'] } })).toHaveLength(0);
      expect(fx.system.byRole('submission')[0]?.running).toBe(true);

      // The dead letters are counted by why: failed validation, and the unknown workflow the handler refused.
      // The counter moves just after the entry is written: wait for it, with a deadline.
      const page = await fx.stack.waitFor(
        async () => {
          const p = await scrape('submission');
          return p.total('sas_dead_letters_total', { queue: 'submission' }) >= dead.length ? p : null;
        },
        { timeoutMs: 10_000, description: 'the submission service to count its dead letters' },
      );
      const byKind: Record<string, number> = {};
      for (const s of page.series('sas_dead_letters_total', { queue: 'submission' })) byKind[s.labels['kind'] ?? '(none)'] = s.value;
      expect(byKind['refused']).toBe(1);
      expect(Object.values(byKind).reduce((a, b) => a + b, 0)).toBe(dead.length);
    });
  });

  describe('when an application uses @sas/client', () => {
    it('follows its order to Processed, sees each status once, and hears Duplicate for another submission under that orderId', async () => {
      const client = new SasClient({ redisUrl: fx.stack.env['REDIS_URL'] ?? '', prefix: fx.stack.queuePrefix, replyTo: 'shop.status' });
      try {
        const order = { orderId: 'client-order', workflow: 'order-fulfilment', payload: { sku: 'kettle', quantity: 1, amount: 2500 } };
        const first = await client.submit(order);
        expect((await client.submit(order)).jobId).toBe(first.jobId); // a resend: the same job, nothing new
        const outcome = await client.waitFor('client-order', { until: ['Processed', 'Failed', 'Compensated'], timeoutMs: 60_000 });
        expect(outcome.status).toBe('Processed');

        await client.submit({ ...order, payload: { ...order.payload, amount: 999 } });
        const duplicate = await client.waitFor('client-order', { until: ['Duplicate'], timeoutMs: 30_000 });
        expect(duplicate.reason).toMatch(/already submitted/);

        const seen: string[] = [];
        for await (const event of client.statuses('client-order', { signal: AbortSignal.timeout(10_000) })) {
          seen.push(event.status);
          if (event.status === 'Duplicate') break;
        }
        expect(seen).toEqual(['Received', 'Processing', 'StepCompleted', 'StepCompleted', 'StepCompleted', 'Processed', 'Duplicate']);
        expect(await fx.processes({ orderId: 'client-order' })).toHaveLength(1);
      } finally {
        await client.close();
      }
    });
  });
});
