import { randomUUID } from 'node:crypto';
import { Bus } from '@sas/bus';
import { QueueNames, SubmissionMessage } from '@sas/contracts';
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
import { SubmissionConfig } from './config';
import { SubmissionHandler } from './submission-handler';

async function main(): Promise<void> {
  const config = loadConfig(SubmissionConfig, process.env);
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId('submission');
  const logger = createLogger({ service: 'submission', instanceId, level: config.LOG_LEVEL });
  const registry = loadWorkflows(readOptionalFile('WORKFLOWS_FILE', config.WORKFLOWS_FILE));
  const store = await connectStore(config.MONGO_URL, config.MONGO_DB);
  await ensureIndexes(store.db);
  const bus = new Bus({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, instanceId, logger, clock: systemClock });
  const handler = new SubmissionHandler({
    store: new MongoProcessStore(store.db),
    outbox: bus,
    deadLetters: bus,
    registry,
    clock: systemClock,
    newId: randomUUID,
    logger,
  });
  const consumer = bus.consume({
    queue: QueueNames.submission,
    schema: SubmissionMessage,
    concurrency: config.CONCURRENCY,
    handle: async (message) => {
      await handler.handle(message);
    },
    onRejected: (raw, reason, issues) => handler.answerRejected(raw, reason, issues),
  });
  const probe = new ProbeServer('submission', { ready: () => bus.isReady() && consumer.isRunning(), metrics: () => consumer.stats() });
  if (config.PROBE_PORT >= 0) await probe.start(config.PROBE_PORT);
  installShutdown(logger, [
    { name: 'bus', close: () => bus.close() },
    { name: 'probe', close: () => probe.close() },
    { name: 'store', close: () => store.close() },
  ]);
  logger.info({ queue: QueueNames.submission, workflows: registry.list() }, 'submission ready');
}

main().catch((e: unknown) => {
  process.stderr.write(`submission failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
