import { Bus } from '@sas/bus';
import { AgentReply, OperatorCommand, QueueNames, SchedulerWakeup } from '@sas/contracts';
import { ProcessEngine } from '@sas/engine';
import {
  ProbeServer,
  createLogger,
  defaultInstanceId,
  installShutdown,
  loadConfig,
  readOptionalFile,
  systemClock,
} from '@sas/runtime';
import { MongoProcessStore, connectStore, ensureIndexes } from '@sas/store';
import { loadWorkflows } from '@sas/workflow';
import { SchedulerConfig } from './config';
import { OperatorCommandHandler } from './operator-command-handler';
import { Scheduler } from './scheduler';

async function main(): Promise<void> {
  const config = loadConfig(SchedulerConfig, process.env);
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId('scheduler');
  const logger = createLogger({ service: 'scheduler', instanceId, level: config.LOG_LEVEL });
  const registry = loadWorkflows(readOptionalFile('WORKFLOWS_FILE', config.WORKFLOWS_FILE));
  const connection = await connectStore(config.MONGO_URL, config.MONGO_DB);
  await ensureIndexes(connection.db);
  const store = new MongoProcessStore(connection.db);
  const bus = new Bus({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, instanceId, logger, clock: systemClock });
  const engine = new ProcessEngine({
    store,
    outbox: bus,
    registry,
    clock: systemClock,
    who: instanceId,
    replyQueue: QueueNames.schedulerReplies,
    logger,
  });
  const scheduler = new Scheduler({
    engine,
    store,
    clock: systemClock,
    logger,
    claimBatch: config.CLAIM_BATCH,
    pollIntervalMs: config.POLL_INTERVAL_MS,
  });
  const commands = new OperatorCommandHandler(engine, bus, logger);
  const replies = bus.consume({
    queue: QueueNames.schedulerReplies,
    schema: AgentReply,
    concurrency: config.REPLY_CONCURRENCY,
    handle: async (reply) => {
      await scheduler.onReply(reply);
    },
  });
  bus.consume({
    queue: QueueNames.schedulerReady,
    schema: SchedulerWakeup,
    concurrency: 1,
    handle: () => scheduler.claimAvailable(),
  });
  bus.consume({
    queue: QueueNames.operatorCommands,
    schema: OperatorCommand,
    concurrency: 1,
    handle: async (command) => {
      await commands.handle(command);
      await scheduler.claimAvailable();
    },
  });
  scheduler.start();
  const probe = new ProbeServer('scheduler', {
    ready: () => bus.isReady() && replies.isRunning(),
    metrics: () => ({ ...scheduler.metrics(), ...replies.stats() }),
  });
  if (config.PROBE_PORT >= 0) await probe.start(config.PROBE_PORT);
  installShutdown(logger, [
    { name: 'scheduler', close: () => scheduler.close() },
    { name: 'bus', close: () => bus.close() },
    { name: 'probe', close: () => probe.close() },
    { name: 'store', close: () => connection.close() },
  ]);
  logger.info({ workflows: registry.list() }, 'scheduler ready');
}

main().catch((e: unknown) => {
  process.stderr.write(`scheduler failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
