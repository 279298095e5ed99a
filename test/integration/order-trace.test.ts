import { AgentWorker, PermanentError, type AgentDefinition, type Breakers } from '@sas/agent';
import { AgentReply, AgentRequest, QueueNames, SubmissionMessage, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { createLogger, type Tracing } from '@sas/runtime';
import { InMemoryProcessStore } from '@sas/store';
import { SubmissionHandler } from '@sas/submission';
import { ManualClock, RecordingOutbox, RecordingTracing, type RecordedSpan } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows } from '@sas/workflow';

// One order through the submission handler, a scheduler's and a supervisor's process engine and
// the agent workers, wired in-process over an in-memory store; every message crosses a "queue"
// as the bus carries it (parsed with its schema), so a field the schema drops is dropped here too.

const T0 = Date.UTC(2030, 0, 1);
const logger = createLogger({ service: 'order-trace-test', instanceId: 'test-1', level: 'silent' });
const APP_TRACE = '0af7651916cd43dd8448eb211c80319c';
const APP_SPAN = 'b7ad6b7169203331';

const neverOpen: Breakers = {
  call: (_service, action) => action(),
  blockedFor: () => undefined,
  state: () => ({ state: 'closed', retryAt: null }),
  onStateChange: () => () => undefined,
};

interface WorldOptions {
  /** Trace every component. @default true */
  traced?: boolean;
  /** Operations (`agent.operation`) that fail permanently. */
  failing?: string[];
}

class World {
  readonly recorder = new RecordingTracing();
  readonly clock = new ManualClock(T0);
  readonly store = new InMemoryProcessStore();
  readonly outbox = new RecordingOutbox();
  readonly submission: SubmissionHandler;
  readonly scheduler: ProcessEngine;
  readonly supervisor: ProcessEngine;
  private readonly agents = new Map<string, AgentWorker>();
  private readonly registry = new WorkflowRegistry(builtInWorkflows);

  constructor(private readonly options: WorldOptions = {}) {
    const { store, outbox, clock, registry } = this;
    const tracing = (service: string): { tracing?: Tracing } => (options.traced === false ? {} : { tracing: this.recorder.tracing(service) });
    this.submission = new SubmissionHandler({ store, outbox, deadLetters: { deadLetter: async () => undefined }, registry, clock, newId: () => 'p-1', logger, ...tracing('submission') });
    const engine = (who: string): ProcessEngine =>
      new ProcessEngine({ store, outbox, registry, clock, who, replyQueue: QueueNames.schedulerReplies, logger, ...tracing(who) });
    this.scheduler = engine('scheduler');
    this.supervisor = engine('supervisor');
    for (const name of ['inventory', 'payment', 'shipping']) this.agents.set(name, this.newAgent(name, tracing(`agent-${name}`)));
  }

  /** The worker of one agent. */
  agent(name: string): AgentWorker {
    const worker = this.agents.get(name);
    if (!worker) throw new Error(`no agent ${name}`);
    return worker;
  }

  private newAgent(name: string, tracing: { tracing?: Tracing }): AgentWorker {
    const handle = (operation: string) => async (): Promise<Record<string, unknown>> => {
      if (this.options.failing?.includes(`${name}.${operation}`)) throw new PermanentError(`${name} refuses ${operation}`);
      return { done: operation };
    };
    const agent: AgentDefinition = {
      name,
      operations: Object.fromEntries(['reserve', 'release', 'charge', 'refund', 'create', 'cancel'].map((op) => [op, { handle: handle(op) }])),
    };
    return new AgentWorker({
      agent,
      instanceId: `agent-${name}-1`,
      clock: this.clock,
      breakers: neverOpen,
      reply: (to, reply) => this.outbox.send(to, reply),
      // Virtual time does not pass by itself: a deadline's sleep ends only when it is cancelled.
      sleep: (_ms, signal) => new Promise<void>((resolve) => (signal && !signal.aborted ? signal.addEventListener('abort', () => resolve(), { once: true }) : resolve())),
      random: () => 0,
      logger,
      defaults: { retry: { maxAttempts: 1, initialBackoffMs: 1, maxBackoffMs: 1, multiplier: 1, jitter: 0 } },
      ...tracing,
    });
  }

  async submit(fields: Record<string, unknown> = {}): Promise<void> {
    const message = SubmissionMessage.parse({ schemaVersion: 1, orderId: 'order-1', workflow: 'order-fulfilment', payload: { sku: 's' }, ...fields });
    await this.submission.handle(message);
    await this.scheduler.apply('p-1', { type: 'claim' });
  }

  /** Runs every queued request through its agent and every reply through the scheduler, until none is left. */
  async settle(options: { dropRequests?: boolean } = {}): Promise<{ requests: AgentRequest[]; replies: AgentReply[] }> {
    const seen = { requests: [] as AgentRequest[], replies: [] as AgentReply[] };
    for (let round = 0; round < 50; round++) {
      const requests = this.outbox.take((s) => s.queue.startsWith('agent.')).map((s) => AgentRequest.parse(s.message));
      const replies = this.outbox.take((s) => s.queue === QueueNames.schedulerReplies).map((s) => AgentReply.parse(s.message));
      if (requests.length === 0 && replies.length === 0) return seen;
      seen.requests.push(...requests);
      seen.replies.push(...replies);
      if (!options.dropRequests) for (const request of requests) await this.agents.get(request.agent)?.handle(request);
      for (const reply of replies) await this.scheduler.apply(reply.processId, { type: 'reply', reply });
    }
    throw new Error('the order did not settle in 50 rounds');
  }

  process(): ProcessDocument {
    const [doc] = this.store.list();
    if (!doc) throw new Error('no process');
    return doc;
  }

  spans(): RecordedSpan[] {
    return this.recorder.spans();
  }

  /** The span with this name whose attributes include `attributes`; throws when not exactly one. */
  span(name: string, attributes: Record<string, unknown> = {}): RecordedSpan {
    const found = this.spans().filter((s) => s.name === name && Object.entries(attributes).every(([k, v]) => s.attributes[k] === v));
    if (found.length !== 1) throw new Error(`expected one span '${name}' ${JSON.stringify(attributes)}, found ${found.length}: ${this.spans().map((s) => s.name).join(', ')}`);
    return found[0]!;
  }
}

const STEPS = [
  ['reserve-inventory', 'inventory', 'reserve'],
  ['charge-payment', 'payment', 'charge'],
  ['create-shipment', 'shipping', 'create'],
] as const;

describe('tracing one order across submission, scheduler, agents and supervisor', () => {
  it('makes the whole order one trace: submit → claim → dispatch → agent attempt → try, each reply applied under the submit span', async () => {
    const w = new World();
    await w.submit();
    await w.settle();
    expect(w.process().state).toBe('Processed');

    const spans = w.spans();
    const submit = w.span('submit');
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([submit.traceId]));
    expect(submit.parentSpanId).toBeUndefined();
    expect(submit).toMatchObject({ service: 'submission', attributes: { orderId: 'order-1', outcome: 'received', processId: 'p-1' } });
    expect(w.process().traceparent).toBe(`00-${submit.traceId}-${submit.spanId}-01`);

    const claim = w.span('claim');
    expect(claim).toMatchObject({ service: 'scheduler', parentSpanId: submit.spanId });
    const replies = spans.filter((s) => s.name === 'apply reply');
    expect(replies).toHaveLength(3);
    for (const reply of replies) expect(reply.parentSpanId).toBe(submit.spanId);

    for (const [i, [step, agent, operation]] of STEPS.entries()) {
      const dispatch = w.span(`dispatch ${step}`);
      // The first step is dispatched by the claim, each next one by applying the reply before it.
      const dispatcher = i === 0 ? claim : replies.find((r) => r.attributes['step'] === STEPS[i - 1]![0])!;
      expect(dispatch).toMatchObject({ service: 'scheduler', kind: 'producer', parentSpanId: dispatcher.spanId });
      const attempt = w.span(`${agent}.${operation} attempt ${i + 1}`);
      expect(attempt).toMatchObject({
        service: `agent-${agent}`,
        parentSpanId: dispatch.spanId,
        attributes: { processId: 'p-1', orderId: 'order-1', step, attempt: i + 1, mode: 'forward', outcome: 'replied-ok' },
      });
      expect(w.span(`${agent}.${operation} try 1`)).toMatchObject({ kind: 'client', parentSpanId: attempt.spanId });
      const applied = replies.find((r) => r.attributes['step'] === step)!;
      expect(applied.links).toEqual([attempt.spanId]);
      expect(applied.attributes).toMatchObject({ outcome: 'ok', mode: 'forward' });
    }
  });

  it('continues the trace the application submitted with', async () => {
    const w = new World();
    await w.submit({ traceparent: `00-${APP_TRACE}-${APP_SPAN}-01` });
    await w.settle();
    expect(w.span('submit')).toMatchObject({ traceId: APP_TRACE, parentSpanId: APP_SPAN });
    expect(new Set(w.spans().map((s) => s.traceId))).toEqual(new Set([APP_TRACE]));
  });

  it('gives each compensation attempt its own span (mode compensate) in the same trace', async () => {
    const w = new World({ failing: ['payment.charge'] });
    await w.submit();
    await w.settle();
    expect(w.process().state).toBe('Compensated');

    const submit = w.span('submit');
    const charge = w.span('payment.charge attempt 2');
    expect(charge).toMatchObject({ failed: true, attributes: { outcome: 'replied-error', mode: 'forward' } });
    const release = w.span('inventory.release attempt 3');
    expect(release).toMatchObject({ traceId: submit.traceId, attributes: { mode: 'compensate', step: 'reserve-inventory', outcome: 'replied-ok' } });
    const dispatch = w.spans().find((s) => s.spanId === release.parentSpanId);
    expect(dispatch).toMatchObject({ name: 'dispatch reserve-inventory', attributes: { mode: 'compensate' } });
    expect(new Set(w.spans().map((s) => s.traceId))).toEqual(new Set([submit.traceId]));
  });

  it('puts the supervisor’s recovery of a lost step, and the attempt after it, in the same trace', async () => {
    const w = new World();
    await w.submit();
    await w.settle({ dropRequests: true }); // the agent never answers: complete-by passes
    w.clock.t += 60_000;
    const recovered = await w.supervisor.apply('p-1', { type: 'expire' });
    expect(recovered.kind).toBe('applied');
    await w.scheduler.apply('p-1', { type: 'claim' });
    await w.settle();
    expect(w.process().state).toBe('Processed');

    const submit = w.span('submit');
    expect(w.span('recover')).toMatchObject({ service: 'supervisor', traceId: submit.traceId, parentSpanId: submit.spanId, attributes: { from: 'Processing', to: 'Pending' } });
    // Attempt 1 was lost, the recovery took attempt 2, the claim after it dispatched attempt 3.
    const again = w.span('inventory.reserve attempt 3');
    expect(again).toMatchObject({ traceId: submit.traceId, attributes: { attempt: 3, outcome: 'replied-ok' } });
    expect(new Set(w.spans().map((s) => s.traceId))).toEqual(new Set([submit.traceId]));
  });

  it('puts an operator’s cancel of an order with a step in flight, and the undo after it, in the same trace', async () => {
    const w = new World();
    await w.submit();
    // The reservation's request is in flight (not yet handled) when the operator cancels.
    const inFlight = w.outbox.take((s) => s.queue.startsWith('agent.')).map((s) => AgentRequest.parse(s.message));
    expect((await w.scheduler.apply('p-1', { type: 'cancel', by: 'alice', reason: 'customer called' })).kind).toBe('applied');
    // Its reply arrives after the cancel, for an attempt that is no longer current: ignored, no span.
    for (const request of inFlight) await w.agent(request.agent).handle(request);
    await w.settle();
    w.clock.t += 60_000; // the undo waits for the canceled attempt's complete-by
    await w.scheduler.apply('p-1', { type: 'claim' });
    await w.settle();
    expect(w.process().state).toBe('Canceled');

    const submit = w.span('submit');
    expect(w.span('cancel')).toMatchObject({ traceId: submit.traceId, parentSpanId: submit.spanId, attributes: { processId: 'p-1', to: 'Pending' } });
    expect(w.span('inventory.release attempt 3')).toMatchObject({ attributes: { mode: 'compensate', outcome: 'replied-ok' } });
    expect(w.spans().filter((s) => s.name === 'apply reply').map((s) => s.attributes['to'])).toEqual(['Canceled']);
    expect(new Set(w.spans().map((s) => s.traceId))).toEqual(new Set([submit.traceId]));
  });

  it('starts a new trace when a message carries a malformed traceparent, and still takes the message', async () => {
    const bad = SubmissionMessage.safeParse({ schemaVersion: 1, orderId: 'o', workflow: 'order-fulfilment', payload: {}, traceparent: 'not-a-trace' });
    expect(bad.success && bad.data.traceparent).toBeUndefined();
    expect(bad.success).toBe(true);
    const zeros = AgentRequest.safeParse({ ...validRequest(), traceparent: `00-${'0'.repeat(32)}-${APP_SPAN}-01` });
    expect(zeros.success && zeros.data.traceparent).toBeUndefined();
    expect(zeros.success).toBe(true);

    const w = new World();
    await w.submit({ traceparent: '00-XYZ-nope-01' });
    await w.settle();
    expect(w.process().state).toBe('Processed');
    const submit = w.span('submit');
    expect(submit.parentSpanId).toBeUndefined();
    expect(new Set(w.spans().map((s) => s.traceId))).toEqual(new Set([submit.traceId]));
  });

  it('with tracing off records no span and carries no trace context in any message or document', async () => {
    const w = new World({ traced: false });
    await w.submit({ traceparent: `00-${APP_TRACE}-${APP_SPAN}-01` });
    const { requests, replies } = await w.settle();
    expect(w.process().state).toBe('Processed');
    expect(w.spans()).toEqual([]);
    expect(w.process()).not.toHaveProperty('traceparent');
    expect(requests).toHaveLength(3);
    for (const request of requests) expect(request).not.toHaveProperty('traceparent');
    expect(replies).toHaveLength(3);
    for (const reply of replies) expect(reply).not.toHaveProperty('traceparent');
  });
});

function validRequest(): AgentRequest {
  return {
    schemaVersion: 1,
    processId: 'p',
    orderId: 'o',
    step: 's',
    stepIndex: 0,
    mode: 'forward',
    agent: 'a',
    operation: 'op',
    attempt: 1,
    idempotencyKey: 'k',
    completeBy: T0,
    payload: {},
    replyTo: 'scheduler.replies',
  };
}
