import { Queue } from 'bullmq';
import { Bus } from '@sas/bus';
import {
  ClientClosedError,
  InvalidOrderError,
  NoAnswerError,
  SasClient,
  StatusTimeoutError,
  submissionJobId,
  type OrderInput,
} from '@sas/client';
import { OperatorCommand, QueueNames, SCHEMA_VERSION, queueKeyPrefix, type StatusEvent } from '@sas/contracts';
import { createLogger, systemClock } from '@sas/runtime';
import { TestStack, uniqueName, waitFor } from '@sas/testkit';

let stack: TestStack;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  stack = await TestStack.start({ name: 'sas-client' });
});
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).reverse().map((close) => close()));
});
afterAll(() => stack?.stop());

const redisUrl = (): string => stack.env.REDIS_URL ?? '';

/** A client with a key prefix of its own, so each test has its own queues. */
function openClient(replyTo = 'app.status'): { client: SasClient; prefix: string } {
  const prefix = uniqueName('client');
  const client = new SasClient({ redisUrl: redisUrl(), prefix, replyTo });
  closers.push(() => client.close());
  return { client, prefix };
}

function openQueue(name: string, prefix: string): Queue {
  const queue = new Queue(name, { connection: { url: redisUrl() }, prefix: queueKeyPrefix(prefix, name) });
  closers.push(() => queue.close());
  return queue;
}

const order = (extra: Partial<OrderInput> = {}): OrderInput => ({
  orderId: 'order-1',
  workflow: 'order-fulfilment',
  payload: { sku: 'kettle', quantity: 1, amount: 2500, lines: [{ sku: 'kettle', n: 1 }] },
  ...extra,
});

const status = (orderId: string, kind: StatusEvent['status'], eventId?: string, step?: string): StatusEvent => ({
  schemaVersion: SCHEMA_VERSION,
  ...(eventId ? { eventId } : {}),
  orderId,
  processId: `p-${orderId}`,
  status: kind,
  ...(step ? { step } : {}),
  at: Date.UTC(2030, 0, 1),
});

/** The order's statuses as the client hands them on, until `last` arrives (or 10 s pass). */
async function statusesUntil(client: SasClient, orderId: string, last: StatusEvent['status']): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of client.statuses(orderId, { signal: AbortSignal.timeout(10_000) })) {
    seen.push(event.step ? `${event.status} ${event.step}` : event.status);
    if (event.status === last) return seen;
  }
  throw new Error(`no ${last} for ${orderId} within 10 s; seen: ${seen.join(', ')}`);
}

describe('submitting orders', () => {
  it('queues one job under the id derived from the orderId and the content, and adds none when the same order is sent again', async () => {
    const { client, prefix } = openClient();
    const first = await client.submit(order());
    // The same submission, keys written in another order: an application retrying its send.
    const again = await client.submit({ payload: { lines: [{ n: 1, sku: 'kettle' }], amount: 2500, quantity: 1, sku: 'kettle' }, workflow: 'order-fulfilment', orderId: 'order-1' });

    const jobs = await openQueue(QueueNames.submission, prefix).getJobs(['waiting', 'active', 'completed']);
    expect(jobs.map((j) => ({ id: j.id, data: j.data as unknown }))).toEqual([
      { id: submissionJobId(first.message), data: { schemaVersion: 1, replyTo: 'app.status', ...order() } },
    ]);
    expect(first.jobId).toMatch(/^order-1\.[0-9a-f]{16}$/);
    expect(again.jobId).toBe(first.jobId);
  });

  it('carries the order’s traceparent without letting it change the job id, and drops a malformed one', async () => {
    const { client, prefix } = openClient();
    const traced = await client.submit(order({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }));
    const retried = await client.submit(order({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }));
    const malformed = await client.submit(order({ orderId: 'order-2', traceparent: 'not-a-trace-context' }));

    expect(retried.jobId).toBe(traced.jobId);
    expect(malformed.message.traceparent).toBeUndefined();
    const jobs = await openQueue(QueueNames.submission, prefix).getJobs(['waiting', 'active', 'completed']);
    const byOrder = new Map(jobs.map((j) => [(j.data as { orderId: string }).orderId, j.data as Record<string, unknown>]));
    expect(jobs).toHaveLength(2);
    expect(byOrder.get('order-1')?.['traceparent']).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(byOrder.get('order-2')).not.toHaveProperty('traceparent');
  });

  it('asks for the status events the client defaults to, unless the order names its own, without changing the job id', async () => {
    const prefix = uniqueName('client');
    const client = new SasClient({ redisUrl: redisUrl(), prefix, replyTo: 'app.status', statusEvents: 'final' });
    closers.push(() => client.close());
    const defaulted = await client.submit(order());
    const own = await client.submit(order({ orderId: 'order-2', statusEvents: 'all' }));

    const jobs = await openQueue(QueueNames.submission, prefix).getJobs(['waiting', 'active', 'completed']);
    const byOrder = new Map(jobs.map((j) => [(j.data as { orderId: string }).orderId, j.data as Record<string, unknown>]));
    expect(byOrder.get('order-1')?.['statusEvents']).toBe('final');
    expect(byOrder.get('order-2')?.['statusEvents']).toBe('all');
    expect(defaulted.jobId).toBe(submissionJobId({ orderId: 'order-1', workflow: 'order-fulfilment', payload: order().payload, replyTo: 'app.status' }));
    expect(own.message.statusEvents).toBe('all');
  });

  it('refuses a status events default it does not know, naming the choices', () => {
    expect(() => new SasClient({ redisUrl: redisUrl(), statusEvents: 'some' as 'all' })).toThrow("statusEvents must be one of 'all', 'final' (got 'some')");
  });

  it('queues a different submission under a taken orderId, so the submission service can answer it with Duplicate', async () => {
    const { client, prefix } = openClient();
    const first = await client.submit(order());
    const other = await client.submit(order({ payload: { sku: 'kettle', quantity: 2, amount: 5000 } }));

    const jobs = await openQueue(QueueNames.submission, prefix).getJobs(['waiting']);
    expect(jobs.map((j) => j.id).sort()).toEqual([first.jobId, other.jobId].sort());
    expect(other.jobId).not.toBe(first.jobId);
  });

  it('takes an orderId with characters BullMQ refuses in job ids, and keeps distinct orderIds distinct', async () => {
    const { client, prefix } = openClient();
    const colon = await client.submit(order({ orderId: 'shop:1' }));
    const encodedLookalike = await client.submit(order({ orderId: 'shop%3A1' }));
    expect(colon.jobId).not.toBe(encodedLookalike.jobId);
    expect(await openQueue(QueueNames.submission, prefix).getWaitingCount()).toBe(2);
  });

  it('refuses an invalid order naming each bad field, and sends nothing', async () => {
    const { client, prefix } = openClient();
    const submitting = client.submit(order({ workflow: '', replyTo: 'bad:queue' }));
    await expect(submitting).rejects.toThrow(InvalidOrderError);
    await expect(submitting).rejects.toThrow(
      "Order 'order-1' is not valid, nothing was sent: workflow: String must contain at least 1 character(s); " +
        'replyTo: replyTo must be a queue name of letters, digits, . _ - (no :). Fix these fields and submit it again.',
    );
    expect(await openQueue(QueueNames.submission, prefix).getWaitingCount()).toBe(0);
  });
});

describe('following status events', () => {
  it('hands each status event on once, in order, however often it is delivered', async () => {
    const { client, prefix } = openClient();
    const statusQueue = openQueue('app.status', prefix);
    // Received delivered twice (the second after BullMQ trimmed the first, so it is a new job);
    // two StepCompleted events are distinct events that share a status.
    const sent = [
      status('o1', 'Received', 'p-o1.0.0'),
      status('o1', 'Received', 'p-o1.0.0'),
      status('o1', 'Processing', 'p-o1.1.0'),
      status('o1', 'StepCompleted', 'p-o1.2.0', 'reserve-stock'),
      status('o1', 'StepCompleted', 'p-o1.3.0', 'charge-payment'),
      status('o1', 'StepCompleted', 'p-o1.3.0', 'charge-payment'),
      status('o1', 'Processed', 'p-o1.4.0'),
    ];
    await statusQueue.addBulk(sent.map((data) => ({ name: 'status', data })));

    expect(await statusesUntil(client, 'o1', 'Processed')).toEqual([
      'Received',
      'Processing',
      'StepCompleted reserve-stock',
      'StepCompleted charge-payment',
      'Processed',
    ]);
  });

  it('tells events without an eventId apart by their job id', async () => {
    const { client, prefix } = openClient();
    const statusQueue = openQueue('app.status', prefix);
    await statusQueue.add('status', status('o2', 'Received', 'p-o2.0.0'));
    await statusQueue.add('status', { ...status('o2', 'Duplicate'), reason: 'first resend' });
    await statusQueue.add('status', { ...status('o2', 'Duplicate'), reason: 'second resend' });
    await statusQueue.add('status', status('o2', 'Processed', 'p-o2.1.0'));

    expect(await statusesUntil(client, 'o2', 'Processed')).toEqual(['Received', 'Duplicate', 'Duplicate', 'Processed']);
  });

  it('resolves waitFor with an event that arrived before it was called', async () => {
    const { client, prefix } = openClient();
    let arrived = false;
    await client.onStatus((event) => void (arrived ||= event.orderId === 'o3'));
    await openQueue('app.status', prefix).add('status', status('o3', 'Compensated', 'p-o3.5.0'));
    await waitFor(() => arrived, { timeoutMs: 10_000, description: "o3's Compensated to arrive" });

    await expect(client.waitFor('o3', { until: ['Processed', 'Compensated'], timeoutMs: 10_000 })).resolves.toEqual(status('o3', 'Compensated', 'p-o3.5.0'));
  });

  it('says which statuses it saw when the awaited one does not come in time', async () => {
    const { client, prefix } = openClient();
    const statusQueue = openQueue('app.status', prefix);
    await statusQueue.addBulk([status('o4', 'Received', 'p-o4.0.0'), status('o4', 'StepCompleted', 'p-o4.1.0', 'reserve-stock')].map((data) => ({ name: 'status', data })));
    await client.waitFor('o4', { until: ['StepCompleted'], timeoutMs: 10_000 });

    const waiting = client.waitFor('o4', { until: ['Processed', 'Compensated'], timeoutMs: 200 });
    await expect(waiting).rejects.toThrow(StatusTimeoutError);
    await expect(waiting).rejects.toThrow(
      "No Processed or Compensated status for order 'o4' within 200 ms; seen: Received, StepCompleted (reserve-stock); " +
        "the order is still under way or waits for an operator (after Failed, see 'sas status o4'): wait longer or look at it.",
    );
  });

  it('says where it listened when nothing at all arrived for the order', async () => {
    const { client, prefix } = openClient('shop.status');
    await expect(client.waitFor('o5', { until: ['Processed'], timeoutMs: 200 })).rejects.toThrow(
      `No Processed status for order 'o5' within 200 ms; nothing arrived for it on 'shop.status' (prefix '${prefix}'): ` +
        "check that the order was submitted with replyTo 'shop.status' and that a submission service runs on the same Redis and QUEUE_PREFIX.",
    );
  });

  it('ends a statuses loop and refuses new calls once the client is closed', async () => {
    const { client } = openClient();
    const loop = (async () => {
      const seen: StatusEvent[] = [];
      for await (const event of client.statuses('o6')) seen.push(event);
      return seen;
    })();
    await client.onStatus(() => undefined); // listening: the loop above is subscribed by now or soon
    await client.close();
    await expect(loop).resolves.toEqual([]);
    await expect(client.submit(order())).rejects.toThrow(ClientClosedError);
  });
});

describe('operator commands', () => {
  it('sends cancel to the schedulers and resolves with their answer', async () => {
    const { client, prefix } = openClient();
    const scheduler = new Bus({ redisUrl: redisUrl(), prefix, instanceId: 'fake-scheduler', logger: createLogger({ service: 'client-test', instanceId: 'x', level: 'silent' }), clock: systemClock });
    closers.push(() => scheduler.close());
    const received: OperatorCommand[] = [];
    scheduler.consume({
      queue: QueueNames.operatorCommands,
      schema: OperatorCommand,
      handle: async (command) => {
        received.push(command);
        await scheduler.sendReply(command.replyTo ?? '', { schemaVersion: 1, processId: command.processId, command: command.command, ok: true, message: `canceled by ${command.by}` });
      },
    });

    await expect(client.cancel('p1', { by: 'alice', reason: 'customer asked', timeoutMs: 10_000 })).resolves.toEqual({
      schemaVersion: 1,
      processId: 'p1',
      command: 'cancel',
      ok: true,
      message: 'canceled by alice',
    });
    expect(received).toEqual([expect.objectContaining({ command: 'cancel', processId: 'p1', by: 'alice', reason: 'customer asked' })]);
  });

  it('says no scheduler answered, and where it looked, when none does', async () => {
    const { client, prefix } = openClient();
    const resubmitting = client.resubmit('p2', { by: 'alice', timeoutMs: 200 });
    await expect(resubmitting).rejects.toThrow(NoAnswerError);
    await expect(resubmitting).rejects.toThrow(`No scheduler answered 'resubmit p2' within 200 ms; are schedulers running on ${redisUrl()} with QUEUE_PREFIX=${prefix}?`);
  });
});
