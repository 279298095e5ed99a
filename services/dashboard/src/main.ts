import { BulkOperationService, MongoBulkCandidates, MongoBulkOperationStore, ensureBulkIndexes } from '@sas/bulk';
import { Bus, PromBusMetrics } from '@sas/bus';
import { StallBoard, createLogger, createMetricsRegistry, defaultInstanceId, installShutdown, loadConfig, mongoLivenessOf, redisLivenessOf, systemClock } from '@sas/runtime';
import { createRedisConnection, redisLivenessOptions } from '@sas/client';
import { MongoAuditLog, connectStore } from '@sas/store';
import { AuthLimits } from './auth-limits';
import { alertConsumerSpec } from './alert-consumer-spec';
import { AlertInbox } from './alert-inbox';
import { DashboardConfig } from './config';
import { createDashboardApp } from './dashboard-app';
import { DashboardCredentials } from './dashboard-credentials';
import { DashboardServer } from './dashboard-server';
import { MongoAgentPauseModel } from './mongo-agent-pause-model';
import { MongoAlertStore } from './mongo-alert-store';
import { MongoReadModel } from './mongo-read-model';
import { systemQueueNames } from './queue-catalog';
import { SchedulerCommandSender } from './scheduler-command-sender';
import { SchedulerSignalSender } from './scheduler-signal-sender';
import { SessionRevocations } from './session-revocations';

/** Wires the dashboard to MongoDB, Redis and HTTP; launchers read the URL from the `dashboard ready` line. */
async function main(): Promise<void> {
  const config = loadConfig(DashboardConfig, process.env);
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId('dashboard');
  const logger = createLogger({ service: 'dashboard', instanceId, level: config.LOG_LEVEL });
  const stalls = new StallBoard(logger, systemClock);
  const store = await connectStore(config.MONGO_URL, config.MONGO_DB, { liveness: mongoLivenessOf(config), logger, stalls });
  const metrics = createMetricsRegistry();
  const bus = new Bus({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, instanceId, logger, clock: systemClock, metrics: new PromBusMetrics(metrics), liveness: redisLivenessOf(config), stalls });
  const alerts = new MongoAlertStore(store.db);
  await alerts.ensureIndexes();
  await ensureBulkIndexes(store.db);
  const audit = new MongoAuditLog(store.db);
  await audit.ensureIndexes();
  // The failed-credential counts: on the system's Redis so replicas share them. Commands fail at
  // once while Redis is away (no offline queue), and the limiter's in-memory stand-in takes over;
  // a silent link is dropped after the command bound like every other connection (docs/liveness.md).
  const limitsRedis = createRedisConnection(config.REDIS_URL, { ...redisLivenessOptions('commands', redisLivenessOf(config)), enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  limitsRedis.on('error', (e: Error) => logger.debug({ err: e.message }, 'sign-in limit counter: Redis error (the in-memory stand-in counts meanwhile)'));
  const authLimits = AuthLimits.onRedis(limitsRedis, `${config.QUEUE_PREFIX}:dashboard`, {
    failures: config.DASHBOARD_AUTH_FAILURES,
    windowMs: config.DASHBOARD_AUTH_WINDOW_MS,
    blockMs: config.DASHBOARD_AUTH_BLOCK_MS,
  });
  if (config.ALERTS_CONSUME) {
    const inbox = new AlertInbox({ store: alerts, clock: systemClock, logger, retentionMs: config.ALERTS_RETENTION_MS });
    bus.consume(alertConsumerSpec(inbox));
  }
  const app = createDashboardApp({
    readModel: new MongoReadModel(store.db),
    alerts,
    queues: systemQueueNames(config.AGENTS).map((name) => bus.queue(name)),
    commands: new SchedulerCommandSender({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, timeoutMs: config.COMMAND_TIMEOUT_MS }),
    signals: new SchedulerSignalSender({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, timeoutMs: config.COMMAND_TIMEOUT_MS }),
    auth: config.DASHBOARD_AUTH === 'off' ? 'off' : new DashboardCredentials(config.DASHBOARD_TOKENS, { sessionTtlMs: config.DASHBOARD_SESSION_TTL_MS, clock: systemClock }),
    logger,
    redisReady: () => bus.isReady() && !store.isStalled(),
    instanceId,
    queuePrefix: config.QUEUE_PREFIX,
    metrics,
    bulk: new BulkOperationService(new MongoBulkOperationStore(store.db), new MongoBulkCandidates(store.db), systemClock),
    agentPauses: new MongoAgentPauseModel(store.db, config.AGENTS),
    audit,
    auditRetentionMs: config.AUDIT_RETENTION_MS,
    authLimits,
    trustProxy: config.DASHBOARD_TRUST_PROXY,
    ...(config.DASHBOARD_INSTANCE_NAME !== undefined && { instanceName: config.DASHBOARD_INSTANCE_NAME }),
    // Sign-outs on the same Redis link as the sign-in limits: every replica refuses a signed-out cookie.
    sessions: new SessionRevocations(() => systemClock.now(), limitsRedis, `${config.QUEUE_PREFIX}:dashboard`, logger),
    // The listening address is a name people use too (HOST=dashboard.internal); a wildcard is not.
    allowedHosts: [...config.DASHBOARD_ALLOWED_HOSTS, ...(config.HOST === '0.0.0.0' || config.HOST === '::' ? [] : [config.HOST])],
  });
  const server = new DashboardServer(app);
  const port = await server.start(config.PORT, config.HOST);
  // A wildcard address is where the server listens, not where a browser can reach it.
  const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  installShutdown(logger, [server, { name: 'bus', close: () => bus.close() }, { name: 'sign-in limits', close: async () => void limitsRedis.disconnect() }, { name: 'store', close: () => store.close() }]);
  if (config.DASHBOARD_AUTH === 'off') logger.warn('DASHBOARD_AUTH=off: anyone who reaches this port can read, resubmit and cancel');
  const roles = config.DASHBOARD_TOKENS.map((t) => t.role);
  logger.info({ port, url, auth: config.DASHBOARD_AUTH, viewers: roles.filter((r) => r === 'viewer').length, operators: roles.filter((r) => r === 'operator').length, queues: systemQueueNames(config.AGENTS), consumesAlerts: config.ALERTS_CONSUME }, 'dashboard ready');
}

main().catch((err: unknown) => {
  // The logger may not exist yet (bad config), so write the reason where an operator will see it.
  process.stderr.write(`dashboard failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
