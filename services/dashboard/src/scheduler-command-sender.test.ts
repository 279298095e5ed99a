import { Bus } from '@sas/bus';
import { createRedisConnection } from '@sas/client';
import { OperatorCommand, QueueNames, SCHEMA_VERSION, type OperatorCommandResult } from '@sas/contracts';
import { systemClock } from '@sas/runtime';
import { startRedis, type RedisServer } from '@sas/stack';
import { uniqueName } from '@sas/testkit';
import { pino } from 'pino';
import { SchedulerCommandSender } from './scheduler-command-sender';

describe('sending operator commands to the schedulers (private Redis)', () => {
  let redis: RedisServer;
  let prefix: string;
  let scheduler: Bus | undefined;
  const logger = pino({ level: 'silent' });

  /** A stand-in scheduler: consumes operator.commands and answers with what `answer` returns. */
  const startScheduler = (answer: (c: OperatorCommand) => Omit<OperatorCommandResult, 'schemaVersion'>[]): OperatorCommand[] => {
    const received: OperatorCommand[] = [];
    scheduler = new Bus({ redisUrl: redis.url, prefix, instanceId: 'fake-scheduler', logger, clock: systemClock });
    const bus = scheduler;
    bus.consume({
      queue: QueueNames.operatorCommands,
      schema: OperatorCommand,
      handle: async (command) => {
        received.push(command);
        for (const result of answer(command)) await bus.send(command.replyTo!, { schemaVersion: SCHEMA_VERSION, ...result });
      },
    });
    return received;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  beforeEach(() => {
    prefix = uniqueName('command-sender');
  });
  afterEach(async () => {
    await scheduler?.close();
    scheduler = undefined;
  });
  afterAll(() => redis?.stop());

  it('resolves with the scheduler’s answer, after sending the command with a private reply queue', async () => {
    const received = startScheduler((c) => [{ processId: c.processId, command: c.command, ok: true, message: `canceled by ${c.by}` }]);
    const sender = new SchedulerCommandSender({ redisUrl: redis.url, prefix, timeoutMs: 10_000 });
    const outcome = await sender.send('cancel', 'p1', 'alice');
    expect(outcome).toEqual({ answered: true, result: { schemaVersion: 1, processId: 'p1', command: 'cancel', ok: true, message: 'canceled by alice' } });
    expect(received).toEqual([expect.objectContaining({ command: 'cancel', processId: 'p1', by: 'alice', replyTo: expect.stringMatching(/^operator\.replies\.[0-9a-f]+$/) })]);
    const raw = createRedisConnection(redis.url);
    try {
      expect(await raw.keys(`${prefix}:{operator.replies.*`)).toEqual([]);
    } finally {
      await raw.quit();
    }
  });

  it('passes a refusal through as an answer', async () => {
    startScheduler((c) => [{ processId: c.processId, command: c.command, ok: false, message: 'process is Processed' }]);
    const outcome = await new SchedulerCommandSender({ redisUrl: redis.url, prefix, timeoutMs: 10_000 }).send('cancel', 'p1', 'bob');
    expect(outcome).toMatchObject({ answered: true, result: { ok: false, message: 'process is Processed' } });
  });

  it('ignores answers about another process or command and waits for its own', async () => {
    startScheduler((c) => [
      { processId: 'someone-else', command: c.command, ok: true, message: 'not yours' },
      { processId: c.processId, command: 'cancel', ok: true, message: 'wrong command' },
      { processId: c.processId, command: c.command, ok: true, message: 'yours' },
    ]);
    const outcome = await new SchedulerCommandSender({ redisUrl: redis.url, prefix, timeoutMs: 10_000 }).send('resubmit', 'p7', 'carol');
    expect(outcome).toMatchObject({ answered: true, result: { processId: 'p7', command: 'resubmit', message: 'yours' } });
  });

  it('says nobody answered when no scheduler runs, and leaves no reply queue behind', async () => {
    const outcome = await new SchedulerCommandSender({ redisUrl: redis.url, prefix, timeoutMs: 300 }).send('resubmit', 'p1', 'dave');
    expect(outcome).toEqual({ answered: false, waitedMs: 300 });
    const inspector = new Bus({ redisUrl: redis.url, prefix, instanceId: 'inspector', logger, clock: systemClock });
    const raw = createRedisConnection(redis.url);
    try {
      expect(await inspector.queue(QueueNames.operatorCommands).getWaitingCount()).toBe(1);
      expect(await raw.keys(`${prefix}:{operator.replies.*`)).toEqual([]);
    } finally {
      await inspector.close();
      await raw.quit();
    }
  });
});
