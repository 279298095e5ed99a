import { Bus, PromBusMetrics } from '@sas/bus';
import { QueueNames } from '@sas/contracts';
import { PausedAgentsCache, ProcessEngine, type Outbox } from '@sas/engine';
import {
  createLogger,
  createMetricsRegistry,
  createTracing,
  tracingClosables,
  defaultInstanceId,
  mongoLivenessOf,
  readOptionalFile,
  redisLivenessOf,
  StallBoard,
  systemClock,
  type Clock,
  type Closable,
  type LivenessFields,
  type Logger,
  type Tracing,
  type TracingSettings,
} from '@sas/runtime';
import { MongoAgentPauseStore, MongoProcessStore, connectStore, ensureIndexes, type StoreConnection } from '@sas/store';
import { loadWorkflows, type WorkflowRegistry } from '@sas/workflow';
import type { Registry } from 'prom-client';
import { recordConnections } from './starting-service';
import { StatusCountingOutbox } from './status-counting-outbox';

/** The configuration fields {@link openProcessService} reads (every such service's schema has them). */
export interface ProcessServiceConfig extends TracingSettings, LivenessFields {
  REDIS_URL: string;
  MONGO_URL: string;
  MONGO_DB: string;
  QUEUE_PREFIX: string;
  LOG_LEVEL: string;
  INSTANCE_ID?: string | undefined;
  WORKFLOWS_FILE?: string | undefined;
  /** How long a reading of the paused agents is used (decision 49). @default 1000 */
  PAUSE_CACHE_MS?: number | undefined;
}

/** What a service that changes processes runs on. */
export interface ProcessService {
  instanceId: string;
  logger: Logger;
  clock: Clock;
  registry: WorkflowRegistry;
  connection: StoreConnection;
  store: MongoProcessStore;
  bus: Bus;
  /** The bus as the engine sends through it, counting status events; give it to whatever else sends them. */
  outbox: Outbox;
  engine: ProcessEngine;
  /** The paused agents as this process's engine sees them (read at most once per `PAUSE_CACHE_MS`). */
  pauses: PausedAgentsCache;
  /** This process's metrics (bus and status counters already on it); the service adds its own and serves it. */
  metrics: Registry;
  /** This process's tracing (already given to the engine); undefined when OTEL_TRACES_EXPORTER is none. */
  tracing: Tracing | undefined;
  /** Stalls of this process's Redis and MongoDB connections, as they happen (docs/liveness.md). */
  stalls: StallBoard;
  /** True while Redis is connected and neither Redis nor MongoDB keeps a call waiting past its bound: the connections' part of `/readyz`. */
  connectionsReady(): boolean;
  /** Bus then store, in the order shutdown should close them (after the service's own components). */
  closables: Closable[];
}

/**
 * Connects a submission, scheduler or supervisor: logger, workflows (built-in plus WORKFLOWS_FILE),
 * MongoDB with indexes, the bus, and the process engine. Each `main.ts` then adds only its own
 * components, so the services cannot drift apart in how they start.
 */
export async function openProcessService(service: string, config: ProcessServiceConfig): Promise<ProcessService> {
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId(service);
  const logger = createLogger({ service, instanceId, level: config.LOG_LEVEL });
  const registry = loadWorkflows(readOptionalFile('WORKFLOWS_FILE', config.WORKFLOWS_FILE));
  const clock = systemClock;
  const stalls = new StallBoard(logger, clock);
  const connection = await connectStore(config.MONGO_URL, config.MONGO_DB, { liveness: mongoLivenessOf(config), logger, stalls });
  await ensureIndexes(connection.db);
  const store = new MongoProcessStore(connection.db);
  const metrics = createMetricsRegistry();
  const bus = new Bus({
    redisUrl: config.REDIS_URL,
    prefix: config.QUEUE_PREFIX,
    instanceId,
    logger,
    clock,
    metrics: new PromBusMetrics(metrics),
    liveness: redisLivenessOf(config),
    stalls,
  });
  const outbox = new StatusCountingOutbox(bus, metrics);
  const pauses = new PausedAgentsCache({
    store: new MongoAgentPauseStore(connection.db),
    clock,
    ttlMs: config.PAUSE_CACHE_MS ?? 1000,
    onChange: (paused) => logger.info({ paused: [...paused].sort() }, `paused agents changed: ${paused.size > 0 ? [...paused].sort().join(', ') : 'none'}; dispatches to paused agents are held`),
  });
  const tracing = createTracing(config, { service, instanceId });
  const engine = new ProcessEngine({
    pausedAgents: pauses,
    store,
    outbox,
    registry,
    clock,
    who: instanceId,
    replyQueue: QueueNames.schedulerReplies,
    logger,
    tracing,
  });
  const connectionsReady = (): boolean => bus.isReady() && !connection.isStalled();
  recordConnections({
    ready: connectionsReady,
    waitingFor: () => [...bus.notReadyReasons(), ...(connection.isStalled() ? ['MongoDB (a call has waited past its bound)'] : [])],
  });
  return {
    instanceId,
    logger,
    clock,
    registry,
    connection,
    store,
    bus,
    outbox,
    engine,
    pauses,
    metrics,
    tracing,
    stalls,
    connectionsReady,
    closables: [
      { name: 'bus', close: () => bus.close() },
      { name: 'store', close: () => connection.close() },
      // Last: the spans of everything closed before it are exported.
      ...tracingClosables(tracing),
    ],
  };
}
