import { Bus, PromBusMetrics } from '@sas/bus';
import { QueueNames } from '@sas/contracts';
import {
  ProbeServer,
  StallBoard,
  closeAll,
  createLogger,
  createMetricsRegistry,
  createTracing,
  defaultInstanceId,
  installShutdown,
  loadConfig,
  mongoLivenessOf,
  redisLivenessOf,
  scrapedCounter,
  systemClock,
  tracingClosables,
  type Closable,
} from '@sas/runtime';
import { AgentRegistrationRepository, BreakerRepository, connectStore, ensureIndexes } from '@sas/store';
import type { AgentDefinition } from './agent-definition';
import { AgentConfig, breakerSettingsOf, retryDefaultsOf } from './agent-config';
import { AgentHost } from './agent-host';
import { AgentRegistrar } from './agent-registrar';
import { CircuitBreakers } from './circuit-breakers';
import { PromAgentMetrics } from './prom-agent-metrics';
import { checkedCompensations } from './registration-of';
import { sleep } from './sleep';

/** Options of {@link runAgent}. */
export interface RunAgentOptions {
  /** The agents this process serves, each on its own queue with its own breaker. */
  agents: readonly AgentDefinition[];
  /** Read with {@link AgentConfig}. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Names the process in logs and metrics. @default `agent-<name>[+<name>...]` */
  service?: string;
  /** The version this process reports in its registration (`sas agents`). @default AGENT_VERSION, else none */
  version?: string;
  /** Close everything on SIGTERM/SIGINT and exit. Tests that run an agent in-process say false. @default true */
  installSignalHandlers?: boolean;
}

/** A running agent process, from {@link runAgent}. */
export interface RunningAgent {
  /** The port `/healthz` `/readyz` `/metrics` answer on; null when `PROBE_PORT` is -1. */
  probePort: number | null;
  /** Stops consuming (requests under way finish and reply), then closes everything. Idempotent. */
  close(): Promise<void>;
}

/**
 * Runs agents as a process: reads the environment ({@link AgentConfig}: Redis, MongoDB for breaker
 * reports, concurrency, retry defaults, breaker settings), connects, consumes each agent's queue,
 * serves probes when `PROBE_PORT` is set, and closes in order on SIGTERM/SIGINT. Logs `agent ready`
 * with the probe port once consuming.
 *
 * @throws ConfigError naming every bad variable, before anything connects; Error naming an agent
 *   whose `compensations` lists an operation it has no handler for, also before anything connects.
 *
 * @example
 * ```ts
 * await runAgent({ agents: [{ name: 'payment', operations: {
 *   charge: async (call) => ({ chargeId: await bank.charge(call.payload, call.idempotencyKey, call.signal) }),
 * } }] });
 * ```
 */
export async function runAgent(options: RunAgentOptions): Promise<RunningAgent> {
  const config = loadConfig(AgentConfig, options.env ?? process.env);
  // Before anything connects: a bad declaration must not leave consumers and connections behind.
  for (const agent of options.agents) checkedCompensations(agent);
  const names = options.agents.map((a) => a.name);
  const service = options.service ?? `agent-${names.join('+')}`;
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId(service);
  const logger = createLogger({ service, instanceId, level: config.LOG_LEVEL });

  const stalls = new StallBoard(logger, systemClock);
  const store = await connectStore(config.MONGO_URL, config.MONGO_DB, { liveness: mongoLivenessOf(config), logger, stalls });
  await ensureIndexes(store.db);
  // Its own registry, not prom-client's global one: a test may run several agents in one process.
  const registry = createMetricsRegistry();
  const bus = new Bus({ redisUrl: config.REDIS_URL, prefix: config.QUEUE_PREFIX, instanceId, logger, clock: systemClock, metrics: new PromBusMetrics(registry), liveness: redisLivenessOf(config), stalls });
  const breakers = new CircuitBreakers({ ...breakerSettingsOf(config), clock: systemClock, logger });
  const metrics = new PromAgentMetrics(registry);
  const unwatchBreakers = metrics.watchBreakers(breakers, names);
  const tracing = createTracing(config, { service, instanceId });
  const host = new AgentHost({
    agents: options.agents,
    instanceId,
    bus,
    breakers,
    reportSink: new BreakerRepository(store.db),
    reportIntervalMs: config.BREAKER_REPORT_INTERVAL_MS,
    clock: systemClock,
    sleep,
    random: Math.random,
    logger,
    defaults: { retry: retryDefaultsOf(config) },
    concurrency: config.CONCURRENCY,
    metrics,
    tracing,
  });
  host.start();
  // After the consumers start, so an agent listed as live is taking requests.
  const registrar = new AgentRegistrar({
    agents: options.agents,
    instanceId,
    version: options.version ?? config.AGENT_VERSION ?? null,
    clock: systemClock,
    sleep,
    sink: new AgentRegistrationRepository(store.db),
    intervalMs: config.REGISTRATION_INTERVAL_MS,
    logger,
  });
  registrar.start();
  scrapedCounter({
    registry,
    name: 'sas_agent_breaker_report_failures_total',
    help: 'Breaker-state writes to the store that failed (the dashboard then shows an older state), by agent',
    labelNames: ['agent'],
    read: () => host.breakerReportFailures().map(({ agent, failures }) => ({ labels: { agent }, value: failures })),
  });

  // Consumers next (in-flight requests finish and reply), then the reporters, the bus, the store.
  // The registration goes first: an agent that stops taking requests stops being listed as live.
  const closables: Closable[] = [
    { name: 'registration', close: () => registrar.close() },
    { name: 'agents', close: () => host.close() },
    { name: 'bus', close: () => bus.close() },
    {
      name: 'circuit breakers',
      close: () => {
        unwatchBreakers();
        return Promise.resolve(breakers.close());
      },
    },
    { name: 'store', close: () => store.close() },
  ];
  let probePort: number | null = null;
  if (config.PROBE_PORT >= 0) {
    const probe = new ProbeServer({ ready: () => bus.isReady() && !store.isStalled() && host.isRunning(), registry });
    probePort = await probe.start(config.PROBE_PORT, config.PROBE_HOST);
    closables.push({ name: 'probe server', close: () => probe.close() });
  }
  // Last: the spans of the requests finished while closing are exported too.
  closables.push(...tracingClosables(tracing));
  const queues = names.map((n) => QueueNames.agentRequests(n));
  // The bound port is logged in the ready line: the readiness signal for whoever started this process.
  logger.info({ agent: names.length === 1 ? names[0] : names, queue: queues.length === 1 ? queues[0] : queues, probePort }, 'agent ready');

  if (options.installSignalHandlers ?? true) installShutdown(logger, closables);
  let closing: Promise<void> | undefined;
  return {
    probePort,
    close: () => (closing ??= closeAll(logger, closables).then(() => undefined)),
  };
}
