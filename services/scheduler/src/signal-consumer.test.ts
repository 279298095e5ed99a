import { Queue } from 'bullmq';
import { Bus } from '@sas/bus';
import { SasClient } from '@sas/client';
import { QueueNames, SignalResult, queueKeyPrefix, type AgentRequest, type ProcessDocument } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import { systemClock } from '@sas/runtime';
import { startRedis, type RedisServer } from '@sas/stack';
import { InMemoryProcessStore } from '@sas/store';
import { RecordingOutbox, uniqueName, waitFor } from '@sas/testkit';
import { WorkflowRegistry, createProcess, type WorkflowDefinition } from '@sas/workflow';
import { pino } from 'pino';
import { consumeSignals } from './signal-consumer';
import { SignalHandler } from './signal-handler';

// The signal path over a real Redis and real BullMQ: an application's SasClient.signal, the
// scheduler's consumer and handler, the answer on the caller's private reply queue, and a bad
// message dead-lettered with an answer while the consumer goes on.

const logger = pino({ level: 'silent' });
const retry = { maxAttempts: 3, initialBackoffMs: 50, maxBackoffMs: 500, multiplier: 2, jitter: 0.5 };
const workflow: WorkflowDefinition = {
  name: 'approval',
  version: 1,
  steps: [
    { name: 'reserve', agent: 'inventory', operation: 'reserve', compensation: 'release', completeByMs: 5_000, retry },
    { name: 'approval', signal: { name: 'approved', timeoutMs: 3_600_000, onTimeout: 'compensate' } },
    { name: 'ship', agent: 'shipping', operation: 'ship', compensation: 'cancel', completeByMs: 5_000, retry },
  ],
  failureThreshold: 3,
  onThreshold: { policy: 'compensate' },
  onPermanentFailure: 'compensate',
  retentionMs: 86_400_000,
};

let redis: RedisServer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).reverse().map((close) => close()));
});
afterAll(() => redis?.stop());

/** A scheduler's signal consumer on its own key prefix, over an in-memory store holding p-1 (order o-1) waiting for `approved`. */
async function scheduler(): Promise<{ prefix: string; store: InMemoryProcessStore; dispatches: RecordingOutbox }> {
  const prefix = uniqueName('signals');
  const bus = new Bus({ redisUrl: redis.url, prefix, instanceId: 'scheduler-1', logger, clock: systemClock });
  closers.push(() => bus.close());
  const store = new InMemoryProcessStore();
  const dispatches = new RecordingOutbox();
  const engine = new ProcessEngine({ store, outbox: dispatches, registry: new WorkflowRegistry([workflow]), clock: systemClock, who: 'scheduler-1', replyQueue: QueueNames.schedulerReplies, logger });
  await store.insert(createProcess({ processId: 'p-1', orderId: 'o-1', payload: {}, replyTo: null, workflow, now: Date.now() }));
  await engine.apply('p-1', { type: 'claim' });
  const request = dispatches.messagesTo(QueueNames.agentRequests('inventory'))[0] as AgentRequest;
  const doc = (await store.get('p-1')) as ProcessDocument;
  await engine.apply('p-1', {
    type: 'reply',
    reply: { schemaVersion: 1, processId: 'p-1', step: request.step, stepIndex: request.stepIndex, mode: 'forward', attempt: doc.attempt, agent: 'inventory', agentInstance: 'inventory-1', at: Date.now(), outcome: 'ok', result: {} },
  });
  consumeSignals(bus, new SignalHandler(engine, store, { send: (queue, message) => bus.sendReply(queue, message) }, logger));
  return { prefix, store, dispatches };
}

function client(prefix: string): SasClient {
  const c = new SasClient({ redisUrl: redis.url, prefix });
  closers.push(() => c.close());
  return c;
}

describe('signals over Redis', () => {
  it('SasClient.signal completes the waiting step; calling it again counts once and is answered as a repeat', async () => {
    const { prefix, store, dispatches } = await scheduler();
    const app = client(prefix);

    const first = await app.signal('o-1', 'approved', { approvedBy: 'ann' }, { timeoutMs: 10_000 });
    expect(first).toMatchObject({ ok: true, outcome: 'consumed', processId: 'p-1', orderId: 'o-1' });
    const again = await app.signal('o-1', 'approved', { approvedBy: 'ann' }, { timeoutMs: 10_000 });
    expect(again).toMatchObject({ ok: true, outcome: 'repeat', signalId: first.signalId });

    expect((await store.get('p-1'))?.signals).toHaveLength(1);
    expect(dispatches.messagesTo(QueueNames.agentRequests('shipping'))).toHaveLength(1);
  });

  it('dead-letters a bad signal message, answers its sender why, and goes on with the next one', async () => {
    const { prefix } = await scheduler();
    const replyTo = uniqueName('app.signals');
    const connection = { url: redis.url };
    const signals = new Queue(QueueNames.processSignals, { connection, prefix: queueKeyPrefix(prefix, QueueNames.processSignals) });
    const deadLetters = new Queue(QueueNames.deadLetter, { connection, prefix: queueKeyPrefix(prefix, QueueNames.deadLetter) });
    const answers = new Queue(replyTo, { connection, prefix: queueKeyPrefix(prefix, replyTo) });
    closers.push(() => signals.close(), () => deadLetters.close(), () => answers.close());

    await signals.add('signal', { schemaVersion: 1, orderId: 'o-1', processId: 'p-1', name: 'approved', signalId: 'bad-1', replyTo });
    const answer = await waitFor(async () => (await answers.getJobs(['waiting']))[0]?.data as unknown, { timeoutMs: 10_000, description: 'an answer to the bad signal' });
    const parsed = SignalResult.parse(answer);
    expect(parsed).toMatchObject({ ok: false, outcome: 'invalid', signalId: 'bad-1' });
    expect(parsed.message).toContain('name the process by exactly one of processId and orderId');
    const kept = await waitFor(async () => (await deadLetters.getJobs(['waiting', 'completed']))[0]?.data as { queue: string; original: unknown } | undefined, { timeoutMs: 10_000, description: 'the dead letter' });
    expect(kept).toMatchObject({ queue: QueueNames.processSignals, original: { signalId: 'bad-1' } });

    const next = await client(prefix).signal('o-1', 'approved', null, { timeoutMs: 10_000 });
    expect(next).toMatchObject({ ok: true, outcome: 'consumed' });
  });
});
