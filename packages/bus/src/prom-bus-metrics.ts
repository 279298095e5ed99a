import { Counter, type Registry } from 'prom-client';
import type { BusMetrics, DeadLetterKind } from './bus-metrics';

/**
 * {@link BusMetrics} as prom-client counters on the given registry: every service that runs a
 * {@link Bus} passes one, so handled, retried and dead-lettered messages read alike everywhere.
 */
export class PromBusMetrics implements BusMetrics {
  private readonly handledTotal: Counter<'queue'>;
  private readonly retriedTotal: Counter<'queue'>;
  private readonly deadLettersTotal: Counter<'queue' | 'kind'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.handledTotal = new Counter({ name: 'sas_messages_handled_total', help: 'Messages a consumer of this process handled, by queue', labelNames: ['queue'], registers });
    this.retriedTotal = new Counter({ name: 'sas_messages_retried_total', help: 'Handler failures put back on their queue for a later delivery, by queue', labelNames: ['queue'], registers });
    this.deadLettersTotal = new Counter({
      name: 'sas_dead_letters_total',
      help: 'Messages this process wrote to the dead-letter queue, by the queue they arrived on and why (invalid, redelivered, handler-failed, job-failed, refused)',
      labelNames: ['queue', 'kind'],
      registers,
    });
  }

  handled(queue: string): void {
    this.handledTotal.inc({ queue });
  }

  retried(queue: string): void {
    this.retriedTotal.inc({ queue });
  }

  deadLettered(queue: string, kind: DeadLetterKind): void {
    this.deadLettersTotal.inc({ queue, kind });
  }
}
