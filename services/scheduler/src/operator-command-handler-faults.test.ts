import {
  QueueNames,
  type AgentRequest,
  type OperatorCommand,
  type OperatorCommandResult,
  type ProcessDocument,
} from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { InMemoryProcessStore } from '@sas/store';
import { dedupKey, FAULT_TIMINGS, FaultInjector, ManualClock, numberedCalls, RecordingOutbox, type SentMessage } from '@sas/testkit';
import { WorkflowRegistry, builtInWorkflows, createProcess, orderFulfilmentManualV1 } from '@sas/workflow';
import { pino } from 'pino';
import { OperatorCommandHandler } from './operator-command-handler';

// "This call fails once" at every call an operator command makes, then BullMQ's redelivery of the
// command (its handler threw). The operator must get the answer of what the first delivery did,
// and the process must change once. Helpers stay in the file: test code must not reach the build.

const T0 = Date.UTC(2030, 0, 1);
const RESULTS = 'ops.results';
/** How often the consumer redelivers a command whose handler keeps throwing, in these tests. */
const DELIVERIES = 3;
const logger = pino({ level: 'silent' });

class World {
  readonly faults = new FaultInjector();
  readonly clock = new ManualClock(T0);
  readonly store = new InMemoryProcessStore();
  readonly outbox = new RecordingOutbox();
  readonly handler: OperatorCommandHandler;
  /** What each `handle` that returned answered. */
  readonly answers: OperatorCommandResult[] = [];
  private readonly registry = new WorkflowRegistry(builtInWorkflows);

  constructor(afterwards = false) {
    const store = this.faults.wrap(this.store, { afterwards });
    const outbox = this.faults.wrap(this.outbox, { afterwards });
    this.handler = new OperatorCommandHandler(this.engine('scheduler-1', store, outbox), outbox, logger);
  }

  engine(who: string, store = this.store, outbox: RecordingOutbox = this.outbox): ProcessEngine {
    const { registry, clock } = this;
    return new ProcessEngine({ store, outbox, registry, clock, who, replyQueue: QueueNames.schedulerReplies, logger });
  }

  /** p-1 claimed and holding its first step. */
  async held(): Promise<void> {
    const doc = createProcess({ processId: 'p-1', orderId: 'order-1', payload: {}, replyTo: 'app.status', workflow: orderFulfilmentManualV1, now: this.clock.t });
    await this.store.insert(doc);
    await this.engine('scheduler-1').apply('p-1', { type: 'claim' });
  }

  /** p-1 in Error: its first step timed out as often as the threshold allows. */
  async inError(): Promise<void> {
    await this.held();
    const engine = this.engine('supervisor-1');
    for (let i = 1; i <= orderFulfilmentManualV1.failureThreshold; i++) {
      if (i > 1) await engine.apply('p-1', { type: 'claim' });
      this.clock.t = (await this.doc()).completeBy?.getTime() ?? this.clock.t;
      await engine.apply('p-1', { type: 'expire' });
    }
    if ((await this.doc()).state !== 'Error') throw new Error('setup did not reach Error');
  }

  async doc(): Promise<ProcessDocument> {
    const doc = await this.store.get('p-1');
    if (!doc) throw new Error('process p-1 is not in the store');
    return doc;
  }

  /** As the BullMQ consumer of `operator.commands`: a handler that throws gets the command again. */
  async deliver(command: OperatorCommand): Promise<void> {
    for (let delivery = 1; ; delivery++) {
      try {
        this.answers.push(await this.handler.handle(command));
        return;
      } catch (e) {
        if (delivery >= DELIVERIES) throw e;
      }
    }
  }

  /** The supervisor's delivery of owed outboxes, the fault passed. */
  async settle(): Promise<void> {
    const engine = this.engine('supervisor-1');
    for (const doc of await this.store.findUndelivered(new Date(this.clock.t), 0)) await engine.deliverOutbox(doc);
  }
}

function distinct(sent: readonly SentMessage[]): unknown[] {
  return [...new Map(sent.map((s, i) => [dedupKey(s, i), s.message])).values()];
}

/** What the command did to the process and told the application, leaving out timestamps. */
async function effect(w: World): Promise<Record<string, unknown>> {
  const doc = await w.doc();
  const { state, mode, currentStep, failureCount, canceled, reason } = doc;
  const history = (await w.store.history('p-1')).map((e) => `${e.from}->${e.to}: ${e.why}`);
  const statuses = distinct(w.outbox.to('app.status')).map((m) => (m as { status: string }).status);
  const requests = distinct(w.outbox.sent.filter((s) => s.queue.startsWith('agent.'))).map((m) => {
    const { step, mode: requestMode, attempt } = m as AgentRequest;
    return `${requestMode} ${step}#${attempt}`;
  });
  return { state, mode, currentStep, failureCount, canceled, reason, steps: doc.steps.map((s) => s.state), history, statuses, requests };
}

const COMMANDS = [
  {
    command: 'cancel' as const,
    setup: (w: World) => w.held(),
    entry: /^Processing->\w+: canceled by ops-1: wrong address/,
    // The transition owes no message here, so its history entry waits in the document (decision 62).
    calls: ['get', 'commit', 'send', 'send'],
  },
  {
    command: 'resubmit' as const,
    setup: (w: World) => w.inError(),
    entry: /^Error->\w+: resubmitted by ops-1/,
    calls: ['get', 'commit', 'send', 'send'],
  },
];

type CommandCase = (typeof COMMANDS)[number];

async function scenario(c: CommandCase, afterwards: boolean, n?: number): Promise<World> {
  const w = new World(afterwards);
  await c.setup(w);
  w.outbox.clear();
  w.clock.t += 100;
  if (n !== undefined) w.faults.failOnce(n);
  await w.deliver({ schemaVersion: 1, command: c.command, processId: 'p-1', by: 'ops-1', reason: 'wrong address', replyTo: RESULTS, commandId: 'cmd-1' });
  await w.settle();
  return w;
}

describe.each(COMMANDS)('OperatorCommandHandler $command when one call fails once', (c) => {
  let clean: { effect: Record<string, unknown>; answer: OperatorCommandResult };
  beforeAll(async () => {
    const w = await scenario(c, false);
    expect(w.answers).toEqual([expect.objectContaining({ ok: true })]);
    clean = { effect: await effect(w), answer: w.answers[0]! };
  });

  it('makes exactly the calls the fault table covers (update COMMANDS when this changes)', async () => {
    const w = await scenario(c, false);
    expect(w.faults.calls.map((x) => x.method)).toEqual(c.calls);
  });

  describe.each(FAULT_TIMINGS)('the call failing %s, then the command redelivered', (_kind, afterwards) => {
    it.each(numberedCalls(c.calls))('call %i (%s): answers ok with what the first delivery did, and applies once', async (n) => {
      const w = await scenario(c, afterwards, n);
      // Every answer the operator got, and every answer the handler returned, is the first one's.
      expect(w.outbox.messagesTo(RESULTS).length).toBeGreaterThanOrEqual(1);
      expect(w.outbox.messagesTo(RESULTS)).toEqual(w.outbox.messagesTo(RESULTS).map(() => clean.answer));
      expect(w.answers).toEqual(w.answers.map(() => clean.answer));
      expect((await w.store.history('p-1')).filter((e) => c.entry.test(`${e.from}->${e.to}: ${e.why}`))).toHaveLength(1);
      expect(await effect(w)).toEqual(clean.effect);
    });
  });
});
