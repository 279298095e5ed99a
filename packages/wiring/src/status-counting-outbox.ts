import { StatusEvent } from '@sas/contracts';
import type { Outbox, OutboxSendOptions, ReplicaCheck } from '@sas/engine';
import { Counter, type Registry } from 'prom-client';

/**
 * The {@link Outbox} the engine and the submission handler send through, counting the status
 * events that reached their queue (`sas_status_events_sent_total{status}`). Everything else passes
 * through untouched. A redelivered outbox counts again: it is sent again (the receiver drops the
 * repeat by its id).
 */
export class StatusCountingOutbox implements Outbox {
  private readonly sent: Counter<'status'>;

  constructor(
    private readonly inner: Outbox,
    registry: Registry,
  ) {
    this.sent = new Counter({
      name: 'sas_status_events_sent_total',
      help: 'Status events sent to applications by this process, by status',
      labelNames: ['status'],
      registers: [registry],
    });
  }

  /** The inner outbox's own check: a wrapper that dropped it would take a cluster's replica wait away (docs/deployment.md#failover). */
  replicaCheck(queues: readonly string[]): ReplicaCheck | undefined {
    return this.inner.replicaCheck?.(queues);
  }

  async send(queue: string, message: unknown, options?: OutboxSendOptions): Promise<void> {
    await this.inner.send(queue, message, options);
    // Parsed only after the send: a message that did not leave is not counted.
    const status = StatusEvent.safeParse(message);
    if (status.success) this.sent.inc({ status: status.data.status });
  }
}
