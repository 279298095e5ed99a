import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Bus, type MessageMeta } from '@sas/bus';
import { createRedisConnection, requestReply } from '@sas/client';
import { QueueNames, SchedulerWakeup, queueKeyPrefix, type DeadLetterEntry } from '@sas/contracts';
import { RedisUnavailableError, TransientError, createLogger } from '@sas/runtime';
import { freePort } from '@sas/stack';
import { ReplyError } from 'ioredis';
import { MongoNetworkError, MongoServerError } from 'mongodb';
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
    expect(consumer.stats()).toEqual({ handled: 3, rejected: 0, retried: 0 });
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
    expect(consumer.stats()).toEqual({ handled: 0, rejected: 1, retried: 0 });
  });

  it('retries a handler that keeps throwing and dead-letters the message after its last attempt', async () => {
    const bus = openBus();
    const queue = uniqueName('throws');
    let calls = 0;
    const rejections: Rejection[] = [];
    bus.consume({
      queue,
      schema: SchedulerWakeup,
      // The bus's own defaults (8 deliveries, exponential backoff) would take half a minute.
      retry: { attempts: 2, backoffMs: 10 },
      handle: async () => {
        calls += 1;
        throw new Error(`mongo down (call ${calls})`);
      },
      onRejected: async (raw, reason, issues) => {
        rejections.push({ raw, reason, issues });
      },
    });
    const message = { schemaVersion: 1, processId: 'p-1', reason: 'test' };
    // The producer asks for 5 attempts: the consumer's policy (2) decides, not the producer.
    await bus.queue(queue).add(queue, message, { attempts: 5, backoff: 10 });

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

  it('retries a handler that hits a MongoDB step-down past its delivery budget, and never dead-letters it', async () => {
    const bus = openBus();
    const queue = uniqueName('stepdown');
    const STEP_DOWN_CALLS = 5;
    let calls = 0;
    const metas: MessageMeta[] = [];
    const rejections: Rejection[] = [];
    const consumer = bus.consume({
      queue,
      schema: SchedulerWakeup,
      // A budget of 2 deliveries: a step-down that lasts 5 of them must not use it up.
      retry: { attempts: 2, backoffMs: 10, maxBackoffMs: 40 },
      handle: async (_message, meta) => {
        calls += 1;
        metas.push(meta);
        // What the driver raises for a write sent to a primary that stepped down (no retryable-write label here).
        if (calls <= STEP_DOWN_CALLS) throw new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' });
      },
      onRejected: async (raw, reason, issues) => {
        rejections.push({ raw, reason, issues });
      },
    });
    await bus.send(queue, { schemaVersion: 1, processId: 'p-1', reason: 'test' });

    await waitFor(() => consumer.stats().handled === 1, { timeoutMs: 10_000, description: 'the message handled once MongoDB has a primary again' });
    expect(calls).toBe(STEP_DOWN_CALLS + 1);
    expect(consumer.stats()).toEqual({ handled: 1, rejected: 0, retried: STEP_DOWN_CALLS });
    // The handler sees the store faults as not spent: every delivery is still its first.
    expect(metas.map((m) => m.attemptsMade)).toEqual(Array.from({ length: STEP_DOWN_CALLS + 1 }, () => 0));
    expect(rejections).toEqual([]);
    expect(await bus.queue(QueueNames.deadLetter).getJobCounts()).toMatchObject({ waiting: 0 });
  });

  it('retries a handler that meets a Redis Cluster failover past its delivery budget, and never dead-letters it', async () => {
    const bus = openBus();
    const queue = uniqueName('failover');
    // What a send meets while a master's replica is promoted: the cluster's refusal, ioredis's give-up, the send deadline.
    const faults = [
      new ReplyError('CLUSTERDOWN The cluster is down'),
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      new RedisUnavailableError("send to queue 'agent.payment.requests' took longer than 5000 ms; is Redis reachable?"),
      new ReplyError('MOVED 10977 127.0.0.1:7005'),
    ];
    let calls = 0;
    const metas: MessageMeta[] = [];
    const consumer = bus.consume({
      queue,
      schema: SchedulerWakeup,
      // A budget of 2 deliveries: a failover that fails 4 of them must not use it up.
      retry: { attempts: 2, backoffMs: 10, maxBackoffMs: 40 },
      handle: async (_message, meta) => {
        metas.push(meta);
        const fault = faults[calls];
        calls += 1;
        if (fault) throw fault;
      },
    });
    await bus.send(queue, { schemaVersion: 1, processId: 'p-1', reason: 'test' });

    await waitFor(() => consumer.stats().handled === 1, { timeoutMs: 10_000, description: 'the message handled once the cluster answers again' });
    expect(calls).toBe(faults.length + 1);
    expect(consumer.stats()).toEqual({ handled: 1, rejected: 0, retried: faults.length });
    expect(metas.map((m) => m.attemptsMade)).toEqual(Array.from({ length: faults.length + 1 }, () => 0));
    expect(await bus.queue(QueueNames.deadLetter).getJobCounts()).toMatchObject({ waiting: 0 });
  });

  it('still spends the budget when the same handler then fails for another reason', async () => {
    const bus = openBus();
    const queue = uniqueName('stepdown-then-bug');
    let calls = 0;
    bus.consume({
      queue,
      schema: SchedulerWakeup,
      retry: { attempts: 2, backoffMs: 10, maxBackoffMs: 40 },
      handle: async () => {
        calls += 1;
        if (calls <= 3) throw new MongoNetworkError('connection 4 to 127.0.0.1:27017 closed');
        throw new Error(`not a store fault (call ${calls})`);
      },
    });
    await bus.send(queue, { schemaVersion: 1, processId: 'p-1', reason: 'test' });

    const [entry] = await deadLetters(bus, 1);
    expect(entry?.reason).toBe('handler failed 2 times: not a store fault (call 5)');
    expect(calls).toBe(5);
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

describe('Bus under failure', () => {
  it('retries a message sent with no attempts at all (a plain queue.add), so a blip does not dead-letter it', async () => {
    const bus = openBus();
    const queue = uniqueName('plain');
    const deliveries: number[] = [];
    const consumer = bus.consume({
      queue,
      schema: SchedulerWakeup,
      retry: { backoffMs: 10 },
      handle: async (_message, meta) => {
        deliveries.push(meta.attemptsMade);
        if (deliveries.length === 1) throw new Error('mongo blip');
      },
    });
    // What the CLI and any application's `queue.add` do: BullMQ's default is a single attempt.
    await bus.queue(queue).add(queue, { schemaVersion: 1, reason: 'test' });

    await waitFor(() => consumer.stats().handled === 1, { timeoutMs: 10_000, description: 'the message handled on its second delivery' });
    expect(deliveries).toEqual([0, 1]);
    expect(consumer.stats()).toEqual({ handled: 1, rejected: 0, retried: 1 });
  });

  it('takes back a message whose consumer was killed within its configured lock, not BullMQ’s 30 s', async () => {
    const queue = uniqueName('died');
    const prefix = uniqueName('bus');
    const lock = { lockDurationMs: 1_000, stalledIntervalMs: 500 };
    const dying = spawn(process.execPath, [join(__dirname, '../support/dying-consumer.js')], {
      env: { ...process.env, REDIS_URL: stack.env.REDIS_URL, QUEUE_PREFIX: prefix, QUEUE: queue, LOCK_MS: '1000', STALLED_MS: '500' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    dying.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => dying.once('exit', resolve));
    try {
      const survivor = new Bus({
        redisUrl: stack.env.REDIS_URL ?? '',
        prefix,
        instanceId: 'survivor',
        logger: createLogger({ service: 'bus-test', instanceId: 'survivor', level: 'silent' }),
        clock: { now: () => T0 },
      });
      buses.push(survivor);
      await survivor.send(queue, { schemaVersion: 1, reason: 'test' });
      await waitFor(() => output.includes('handling'), { timeoutMs: 15_000, description: 'the dying consumer to take the message' });
      dying.kill('SIGKILL');
      await exited;

      const taken: MessageMeta[] = [];
      survivor.consume({ queue, schema: SchedulerWakeup, lock, handle: async (_m, meta) => void taken.push(meta) });
      await waitFor(() => taken.length === 1, { timeoutMs: 8_000, description: 'the survivor to take the message back' });
      expect(taken[0]?.attemptsMade).toBe(1);
    } finally {
      dying.kill('SIGKILL');
    }
  });

  it('fails a send within its deadline while Redis is unreachable, with a TransientError that says so', async () => {
    const closedPort = await freePort();
    const bus = new Bus({
      redisUrl: `redis://127.0.0.1:${closedPort}`,
      prefix: uniqueName('bus'),
      instanceId: 'no-redis',
      logger: createLogger({ service: 'bus-test', instanceId: 'no-redis', level: 'silent' }),
      clock: { now: () => T0 },
      sendTimeoutMs: 300,
    });
    buses.push(bus);
    const send = bus.send('somewhere', { schemaVersion: 1, reason: 'test' });

    await expect(send).rejects.toBeInstanceOf(TransientError);
    await expect(send).rejects.toThrow("send to queue 'somewhere' took longer than 300 ms; is Redis reachable?");
  });

  it('keeps a bounded number of queue handles however many reply queues it answers', async () => {
    const bus = new Bus({
      redisUrl: stack.env.REDIS_URL ?? '',
      prefix: uniqueName('bus'),
      instanceId: 'many-queues',
      logger: createLogger({ service: 'bus-test', instanceId: 'many-queues', level: 'silent' }),
      clock: { now: () => T0 },
      queueCacheSize: 3,
    });
    buses.push(bus);
    bus.queue(QueueNames.deadLetter); // pinned: stays
    const names = Array.from({ length: 20 }, (_, i) => uniqueName(`reply-${i}`));
    await Promise.all(names.map((name) => bus.send(name, { schemaVersion: 1, reason: 'test' })));

    expect(bus.queueHandles()).toBeLessThanOrEqual(4);
    // An evicted queue is opened again on its next send.
    await bus.send(names[0] ?? '', { schemaVersion: 1, reason: 'again' });
    expect(await bus.queue(names[0] ?? '').count()).toBe(2);
  });

  it('drops an operator answer that arrives after its caller stopped waiting, leaving no queue behind', async () => {
    const prefix = uniqueName('bus');
    const redisUrl = stack.env.REDIS_URL ?? '';
    const bus = new Bus({ redisUrl, prefix, instanceId: 'late', logger: createLogger({ service: 'bus-test', instanceId: 'late', level: 'silent' }), clock: { now: () => T0 } });
    buses.push(bus);
    const outcome = await requestReply({
      redisUrl,
      prefix,
      queue: uniqueName('nobody-listens'),
      request: (replyTo) => ({ schemaVersion: 1, reason: 'test', replyTo }),
      reply: SchedulerWakeup,
      timeoutMs: 200,
    });
    if (outcome.answered) throw new Error('nobody should have answered');

    await bus.sendReply(outcome.replyTo, { schemaVersion: 1, reason: 'late answer' });

    const redis = createRedisConnection(redisUrl);
    try {
      expect(await redis.keys(`${queueKeyPrefix(prefix, outcome.replyTo)}:*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });

  it('still answers an ordinary reply queue (an application’s own) through sendReply', async () => {
    const bus = openBus();
    const queue = uniqueName('app-status');
    await bus.sendReply(queue, { schemaVersion: 1, reason: 'answer' });
    expect(await bus.queue(queue).count()).toBe(1);
  });
});
