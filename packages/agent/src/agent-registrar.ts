import type { Logger } from 'pino';
import type { AgentRegistration } from '@sas/contracts';
import { ensureError, type Clock } from '@sas/runtime';
import type { AgentDefinition } from './agent-definition';
import { registrationOf } from './registration-of';
import type { Sleep } from './sleep';

/** Where registrations go; `AgentRegistrationRepository` from `@sas/store` in production. */
export interface RegistrationSink {
  put(doc: AgentRegistration): Promise<void>;
  remove(id: string): Promise<void>;
}

/** Options of {@link AgentRegistrar}. */
export interface AgentRegistrarOptions {
  agents: readonly AgentDefinition[];
  instanceId: string;
  /** The version the process reports (its own release); null when not given. */
  version: string | null;
  clock: Clock;
  sleep: Sleep;
  sink: RegistrationSink;
  /** Heartbeat period; a registration expires after three missed beats. */
  intervalMs: number;
  logger: Logger;
}

/**
 * Keeps what this process serves in the store while it runs: every agent's registration at start
 * and on each heartbeat, removed on a clean close (a crashed process drops out when its TTL
 * passes). Checked at construction, so a bad `compensations` list stops the start. A failing write
 * is logged, never fatal: agents work without the registry, only the live checks lose sight of them.
 */
export class AgentRegistrar {
  private readonly startedAt: number;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private failures = 0;

  constructor(private readonly options: AgentRegistrarOptions) {
    if (!(options.intervalMs > 0)) throw new Error(`REGISTRATION_INTERVAL_MS must be positive (got ${options.intervalMs})`);
    this.startedAt = options.clock.now();
    // Throws now, naming the agent, rather than at the first beat.
    this.registrations();
  }

  /** Registers now, then every `intervalMs` until {@link close}. */
  start(): void {
    if (this.loop || this.closing) return;
    this.loop = this.heartbeat();
  }

  /** Failed writes so far, for `/metrics` and tests. */
  failedWrites(): number {
    return this.failures;
  }

  /** Stops the heartbeat, waits for a beat under way, then removes the registrations. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stopping.abort();
      await this.loop;
      for (const doc of this.registrations()) {
        try {
          await this.options.sink.remove(doc._id);
        } catch (e) {
          this.options.logger.warn({ err: ensureError(e).message, agent: doc.agent }, 'could not remove the agent registration; it expires with its TTL');
        }
      }
    })();
    return this.closing;
  }

  private async heartbeat(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      await this.beat();
      await this.options.sleep(this.options.intervalMs, this.stopping.signal);
    }
  }

  private async beat(): Promise<void> {
    for (const doc of this.registrations()) {
      try {
        await this.options.sink.put(doc);
      } catch (e) {
        this.failures += 1;
        this.options.logger.warn({ err: ensureError(e).message, agent: doc.agent }, 'could not register the agent in the store; will try again on the next heartbeat');
      }
    }
  }

  private registrations(): AgentRegistration[] {
    const { agents, instanceId, version, clock, intervalMs } = this.options;
    const now = clock.now();
    return agents.map((agent) => registrationOf(agent, { instanceId, version, startedAt: this.startedAt, now, ttlMs: 3 * intervalMs }));
  }
}
