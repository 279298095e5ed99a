import { Bus } from '@sas/bus';
import { QueueNames } from '@sas/contracts';
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
import { LeaseRepository, MongoProcessStore, connectStore, ensureIndexes } from '@sas/store';
import { loadWorkflows } from '@sas/workflow';
import { SupervisorConfig } from './config';
import { Supervisor } from './supervisor';

async function main(): Promise<void> {
  const config = loadConfig(SupervisorConfig, process.env);
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId('supervisor');
  const logger = createLogger({ service: 'supervisor', instanceId, level: config.LOG_LEVEL });
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
  const supervisor = new Supervisor({
    engine,
    store,
    lease: new LeaseRepository(connection.db),
    clock: systemClock,
    instanceId,
    logger,
    sweepIntervalMs: config.SWEEP_INTERVAL_MS,
    batch: config.SWEEP_BATCH,
    leaseTtlMs: config.LEASE_TTL_MS,
  });
  supervisor.start();
  const probe = new ProbeServer('supervisor', { ready: () => bus.isReady(), metrics: () => supervisor.metrics() });
  if (config.PROBE_PORT >= 0) await probe.start(config.PROBE_PORT);
  installShutdown(logger, [
    { name: 'supervisor', close: () => supervisor.close() },
    { name: 'bus', close: () => bus.close() },
    { name: 'probe', close: () => probe.close() },
    { name: 'store', close: () => connection.close() },
  ]);
  logger.info({ sweepIntervalMs: config.SWEEP_INTERVAL_MS }, 'supervisor ready');
}

main().catch((e: unknown) => {
  process.stderr.write(`supervisor failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
