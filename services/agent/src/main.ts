import { Bus } from '@sas/bus';
import { AgentRequest, QueueNames } from '@sas/contracts';
import {
  ProbeServer,
  createLogger,
  defaultInstanceId,
  installShutdown,
  loadConfig,
  systemClock,
  type Closable,
} from '@sas/runtime';
import { BreakerRepository, connectStore, ensureIndexes } from '@sas/store';
import {
  AgentWorker,
  BreakerReporter,
  CircuitBreakers,
  breakerSettingsOf,
  retryDefaultsOf,
  sleep,
} from '@sas/agent';
import { HttpAgentConfig } from './http-agent-config';
import { createHttpRemoteCall } from './http-remote-call';

/** Wires one agent process: config → logger → store → bus → breakers → worker → consumer. */
async function main(): Promise<void> {
  const config = loadConfig(HttpAgentConfig, process.env);
  const agent = config.AGENT;
  const service = `agent-${agent}`;
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId(service);
  const logger = createLogger({ service, instanceId, level: config.LOG_LEVEL });

  const store = await connectStore(config.MONGO_URL, config.MONGO_DB);
  await ensureIndexes(store.db);
  const bus = new Bus({
    redisUrl: config.REDIS_URL,
    prefix: config.QUEUE_PREFIX,
    instanceId,
    logger,
    clock: systemClock,
  });

  const breakers = new CircuitBreakers({ ...breakerSettingsOf(config), clock: systemClock, logger });
  const reporter = new BreakerReporter({
    agent,
    instanceId,
    clock: systemClock,
    sleep,
    sink: new BreakerRepository(store.db),
    breakers,
    intervalMs: config.BREAKER_REPORT_INTERVAL_MS,
    logger,
  });
  reporter.start();

  const worker = new AgentWorker({
    agent,
    instanceId,
    clock: systemClock,
    remoteCall: createHttpRemoteCall(config.REMOTE_URL, { timeoutMs: config.REMOTE_CALL_TIMEOUT_MS }),
    breakers,
    reply: (replyTo, reply) => bus.send(replyTo, reply),
    sleep,
    random: Math.random,
    logger,
    defaults: { retry: retryDefaultsOf(config) },
  });
  const queue = QueueNames.agentRequests(agent);
  const consumer = bus.consume({
    queue,
    schema: AgentRequest,
    concurrency: config.CONCURRENCY,
    handle: async (request) => {
      await worker.handle(request);
    },
  });

  const closables: Closable[] = [{ name: 'bus', close: () => bus.close() }];
  let probePort: number | null = null;
  if (config.PROBE_PORT >= 0) {
    const probe = new ProbeServer(service, {
      ready: () => bus.isReady() && consumer.isRunning(),
      metrics: () => ({
        ...consumer.stats(),
        ...worker.stats(),
        breaker_open: breakers.state(agent).state === 'open' ? 1 : 0,
        breaker_report_failures: reporter.failedReports(),
      }),
    });
    probePort = await probe.start(config.PROBE_PORT);
    closables.push({ name: 'probe server', close: () => probe.close() });
  }
  // The bound port is logged in the ready line: the readiness signal for whoever started this process.
  logger.info({ agent, queue, remote: config.REMOTE_URL, probePort }, 'agent ready');

  // Consumers first (in-flight requests finish and reply), then the reporter, then the store.
  installShutdown(logger, [
    ...closables,
    { name: 'breaker reporter', close: () => reporter.close() },
    { name: 'circuit breakers', close: () => Promise.resolve(breakers.close()) },
    { name: 'store', close: () => store.close() },
  ]);
}

main().catch((e: unknown) => {
  // The logger may not exist yet (bad config): stderr is the only place left to say why.
  process.stderr.write(`agent failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
