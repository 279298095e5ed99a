import type { Logger } from 'pino';
import type { Consumer } from '@sas/bus';
import { AgentRequest, QueueNames, type AgentReply } from '@sas/contracts';
import type { Clock, Tracing } from '@sas/runtime';
import type { AgentDefinition } from './agent-definition';
import type { AgentMetrics } from './agent-metrics';
import { AgentWorker, type AgentWorkerDefaults } from './agent-worker';
import { BreakerReporter, type BreakerReportSink } from './breaker-reporter';
import type { Breakers } from './breakers';
import type { Sleep } from './sleep';

/** The part of `Bus` from `@sas/bus` an {@link AgentHost} uses. */
export interface AgentBus {
  send(queue: string, message: AgentReply): Promise<void>;
  consume(spec: {
    queue: string;
    schema: typeof AgentRequest;
    concurrency?: number;
    handle: (request: AgentRequest) => Promise<void>;
  }): Pick<Consumer<typeof AgentRequest>, 'isRunning' | 'stats' | 'close'>;
}

/** Everything an {@link AgentHost} runs on, injected. */
export interface AgentHostDeps {
  agents: readonly AgentDefinition[];
  instanceId: string;
  bus: AgentBus;
  /** One breaker per agent name, shared by all of them (`CircuitBreakers`). */
  breakers: Breakers;
  /** Where each agent's breaker state goes for the dashboard; none: not reported. */
  reportSink?: BreakerReportSink;
  /** @default 5000 */
  reportIntervalMs?: number;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  logger: Logger;
  defaults: AgentWorkerDefaults;
  /** Requests handled at once per agent. @default 16 */
  concurrency?: number;
  /** Where every handled request is reported. @default none */
  metrics?: AgentMetrics;
  /** Spans per attempt and try, in each order's trace. @default none */
  tracing?: Tracing | undefined;
}

interface Hosted {
  name: string;
  worker: AgentWorker;
  consumer: Pick<Consumer<typeof AgentRequest>, 'isRunning' | 'stats' | 'close'>;
  reporter: BreakerReporter | undefined;
}

/**
 * Several logical agents in one process: each consumes its own queue
 * (`QueueNames.agentRequests(name)`) with its own worker, its own breaker (keyed by its name) and
 * its own breaker reporter, so a failing remote parks only its own agent's steps.
 */
export class AgentHost {
  private hosted: Hosted[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly deps: AgentHostDeps) {
    const names = deps.agents.map((a) => a.name);
    if (names.length === 0) throw new Error('AgentHost needs at least one agent');
    const twice = names.filter((n, i) => names.indexOf(n) !== i);
    if (twice.length) throw new Error(`agent names must be unique in one process; '${twice[0]}' appears twice`);
    for (const name of names) {
      if (!/^[a-z][a-z0-9-]*$/.test(name)) {
        throw new Error(`agent name '${name}' must be lower-case letters, digits and -, starting with a letter (it names a queue)`);
      }
    }
  }

  /** Starts a consumer (and a breaker reporter) per agent. */
  start(): void {
    if (this.hosted.length || this.closing) return;
    const { deps } = this;
    this.hosted = deps.agents.map((agent) => {
      const logger = deps.logger.child({ agent: agent.name });
      const worker = new AgentWorker({
        agent,
        instanceId: deps.instanceId,
        clock: deps.clock,
        breakers: deps.breakers,
        reply: (replyTo, reply) => deps.bus.send(replyTo, reply),
        sleep: deps.sleep,
        random: deps.random,
        logger,
        defaults: deps.defaults,
        tracing: deps.tracing,
      });
      const reporter = deps.reportSink
        ? new BreakerReporter({
            agent: agent.name,
            instanceId: deps.instanceId,
            clock: deps.clock,
            sleep: deps.sleep,
            sink: deps.reportSink,
            breakers: deps.breakers,
            intervalMs: deps.reportIntervalMs,
            logger,
          })
        : undefined;
      reporter?.start();
      const consumer = deps.bus.consume({
        queue: QueueNames.agentRequests(agent.name),
        schema: AgentRequest,
        concurrency: deps.concurrency ?? 16,
        handle: async (request) => {
          const outcome = await worker.handle(request);
          deps.metrics?.requestHandled(agent.name, outcome);
        },
      });
      return { name: agent.name, worker, consumer, reporter };
    });
  }

  /** True while every agent's consumer runs. */
  isRunning(): boolean {
    return this.hosted.length > 0 && this.hosted.every((h) => h.consumer.isRunning());
  }

  /** Counters for `/metrics`; with several agents each is prefixed by its agent's name. */
  stats(): Record<string, number> {
    const single = this.hosted.length === 1;
    return Object.fromEntries(
      this.hosted.flatMap((h) => {
        const prefix = single ? '' : `${h.name.replace(/-/g, '_')}_`;
        const entries: Record<string, number> = {
          ...h.consumer.stats(),
          ...h.worker.stats(),
          breaker_open: this.deps.breakers.state(h.name).state === 'open' ? 1 : 0,
          breaker_report_failures: h.reporter?.failedReports() ?? 0,
        };
        return Object.entries(entries).map(([k, v]) => [`${prefix}${k}`, v] as const);
      }),
    );
  }

  /** Failed breaker-state writes so far, per agent, for `/metrics`. */
  breakerReportFailures(): { agent: string; failures: number }[] {
    return this.hosted.map((h) => ({ agent: h.name, failures: h.reporter?.failedReports() ?? 0 }));
  }

  /**
   * Stops consuming (requests under way finish and reply), then the breaker reporters. Idempotent.
   * The bus and the breakers belong to whoever built them.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled(this.hosted.map((h) => h.consumer.close()));
      await Promise.allSettled(this.hosted.map((h) => h.reporter?.close()));
    })();
    return this.closing;
  }
}
