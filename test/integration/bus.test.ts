import { Bus, type MessageMeta } from '@sas/bus';
import { QueueNames, SchedulerWakeup, type DeadLetterEntry } from '@sas/contracts';
import { createLogger } from '@sas/runtime';
import { TestStack, uniqueName, waitFor } from '@sas/testkit';

const T0 = Date.UTC(2030, 0, 1);
const INVALID_NAME = "Queue name 'bad:name' is not valid: use letters, digits, '.', '_' and '-' only";

let stack: TestStack;
const buses: Bus[] = [];

beforeAll(async () => {
  stack = await TestStack.start({ name: 'bus' });
});
afterEach(async () => {
  await Promise.all(buses.splice(0).map((b) => b.close()));
});
afterAll(() => stack?.stop());

/** A bus with a key prefix of its own, so each test has its own dead-letter queue. */
function openBus(): Bus {
  const bus = new Bus({
    redisUrl: stack.env.REDIS_URL ?? '',
    prefix: uniqueName('bus'),
    instanceId: 'bus-test-1',
    logger: createLogger({ service: 'bus-test', instanceId: 'bus-test-1', level: 'silent' }),
    clock: { now: () => T0 },
  });
  buses.push(bus);
  return bus;
}

async function deadLetters(bus: Bus, count: number): Promise<DeadLetterEntry[]> {
  return waitFor(
    async () => {
      const jobs = await bus.queue(QueueNames.deadLetter).getJobs(['waiting']);
      return jobs.length >= count ? jobs.map((j) => j.data as DeadLetterEntry) : undefined;
    },
    { timeoutMs: 10_000, description: `${count} dead letter(s)` },
  );
}

interface Rejection {
  raw: unknown;
  reason: string;
  issues: readonly string[];
}

describe('Bus', () => {
  it('delivers valid messages to the consumer of their queue', async () => {
    const bus = openBus();
    const queue = uniqueName('valid');
    const received: Array<[SchedulerWakeup, MessageMeta]> = [];
    const consumer = bus.consume({
      queue,
      schema: SchedulerWakeup,
      handle: async (message, meta) => {
        received.push([message, meta]);
      },
    });
    for (const id of ['p-1', 'p-2', 'p-3'])
      await bus.send(queue, { schemaVersion: 1, processId: id, reason: 'test' });

    await waitFor(() => received.length === 3, { timeoutMs: 10_000, description: 'three messages handled' });
    expect(received.map(([m]) => m.processId).sort()).toEqual(['p-1', 'p-2', 'p-3']);
    expect(received.map(([, meta]) => [meta.queue, meta.attemptsMade])).toEqual([
      [queue, 0],
      [queue, 0],
      [queue, 0],
    ]);
    await waitFor(() => consumer.stats().handled === 3, {
      timeoutMs: 5_000,
      description: 'the handled counter to reach 3',
    });
    expect(consumer.stats()).toEqual({ handled: 3, rejected: 0 });
  });

  it('dead-letters an invalid message at once with its flattened issues and tells onRejected', async () => {
    const bus = openBus();
    const queue = uniqueName('invalid');
    const handled: unknown[] = [];
    const rejections: Rejection[] = [];
    const consumer = bus.consume({
      queue,
      schema: SchedulerWakeup,
      handle: async (message) => {
        handled.push(message);
      },
      onRejected: async (raw, reason, issues) => {
        rejections.push({ raw, reason, issues });
      },
    });
    const bad = { schemaVersion: 2, reason: 42 };
    await bus.send(queue, bad);

    const [entry] = await deadLetters(bus, 1);
    const issues = [
      'schemaVersion: Invalid literal value, expected 1',
      'reason: Expected string, received number',
    ];
    expect(entry).toEqual({
      schemaVersion: 1,
      queue,
      rejectedBy: 'bus-test-1',
      reason: `invalid message on ${queue}`,
      issues,
      original: bad,
      at: T0,
    });
    await waitFor(() => rejections.length === 1, {
      timeoutMs: 5_000,
      description: 'onRejected to be called',
    });
    expect(rejections).toEqual([{ raw: bad, reason: `invalid message on ${queue}`, issues }]);
    expect(handled).toEqual([]);
    // Not retried: the job completed on its first delivery.
    const counts = await bus.queue(queue).getJobCounts('completed', 'failed', 'delayed', 'waiting');
    expect(counts).toMatchObject({ completed: 1, failed: 0, delayed: 0, waiting: 0 });
    expect(consumer.stats()).toEqual({ handled: 0, rejected: 1 });
  });

  it('retries a handler that keeps throwing and dead-letters the message after its last attempt', async () => {
    const bus = openBus();
    const queue = uniqueName('throws');
    let calls = 0;
    const rejections: Rejection[] = [];
    bus.consume({
      queue,
      schema: SchedulerWakeup,
      handle: async () => {
        calls += 1;
        throw new Error(`mongo down (call ${calls})`);
      },
      onRejected: async (raw, reason, issues) => {
        rejections.push({ raw, reason, issues });
      },
    });
    const message = { schemaVersion: 1, processId: 'p-1', reason: 'test' };
    // The bus's own defaults (8 attempts, exponential backoff) would take half a minute.
    await bus.queue(queue).add(queue, message, { attempts: 2, backoff: 10 });

    const [entry] = await deadLetters(bus, 1);
    expect(entry).toMatchObject({
      queue,
      reason: 'handler failed 2 times: mongo down (call 2)',
      issues: [],
      original: message,
    });
    expect(calls).toBe(2);
    await waitFor(() => rejections.length === 1, {
      timeoutMs: 5_000,
      description: 'onRejected to be called',
    });
    expect(rejections[0]).toEqual({
      raw: message,
      reason: 'handler failed 2 times: mongo down (call 2)',
      issues: [],
    });
  });

  it('closes once however often close() is called, consumers included', async () => {
    const bus = openBus();
    const queue = uniqueName('close');
    const consumer = bus.consume({ queue, schema: SchedulerWakeup, handle: async () => undefined });
    // Closing a BullMQ worker during its very first stalled-job check leaves a 30 s timer behind
    // (BullMQ 5.81); a handled message shows the worker is past it.
    await bus.send(queue, { schemaVersion: 1, reason: 'test' });
    await waitFor(() => consumer.stats().handled === 1, {
      timeoutMs: 10_000,
      description: 'one message handled',
    });
    const first = bus.close();

    expect(bus.close()).toBe(first);
    await first;
    await bus.close();
    // BullMQ's running flag and ioredis's status change just after their close promises resolve.
    await waitFor(() => !consumer.isRunning(), { timeoutMs: 5_000, description: 'the consumer to stop' });
    await waitFor(() => !bus.isReady(), { timeoutMs: 5_000, description: 'the producer connection to end' });
  });

  it("refuses a queue name with ':' with a message that says which characters are allowed", async () => {
    const bus = openBus();

    expect(() => bus.queue('bad:name')).toThrow(INVALID_NAME);
    await expect(bus.send('bad:name', { schemaVersion: 1, reason: 'test' })).rejects.toThrow(INVALID_NAME);
    expect(() =>
      bus.consume({ queue: 'bad:name', schema: SchedulerWakeup, handle: async () => undefined }),
    ).toThrow(INVALID_NAME);
  });
});
