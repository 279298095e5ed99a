// A consumer in a process of its own, for tests that kill it with SIGKILL: it takes messages of
// QUEUE under the lock timing LOCK_MS / STALLED_MS and never finishes handling them, printing
// "handling" when it has one. Plain JS so the test can spawn it with node, no transpiling.
const { Bus } = require('@sas/bus');
const { SchedulerWakeup } = require('@sas/contracts');
const { createLogger } = require('@sas/runtime');

const env = process.env;
const bus = new Bus({
  redisUrl: env.REDIS_URL,
  prefix: env.QUEUE_PREFIX,
  instanceId: 'dying',
  logger: createLogger({ service: 'dying-consumer', instanceId: 'dying', level: 'silent' }),
  clock: { now: () => Date.now() },
});
bus.consume({
  queue: env.QUEUE,
  schema: SchedulerWakeup,
  lock: { lockDurationMs: Number(env.LOCK_MS), stalledIntervalMs: Number(env.STALLED_MS) },
  handle: () => {
    process.stdout.write('handling\n');
    return new Promise(() => undefined);
  },
});
