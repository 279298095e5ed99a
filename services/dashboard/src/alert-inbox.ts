import type { MessageMeta } from '@sas/bus';
import type { Alert } from '@sas/contracts';
import type { Clock } from '@sas/runtime';
import type { Logger } from 'pino';
import { alertRecord } from './alert-record';
import type { AlertStore, SaveOutcome } from './alert-store';

/** What {@link AlertInbox} needs. */
export interface AlertInboxDeps {
  store: AlertStore;
  clock: Clock;
  logger: Logger;
  /** How long a stored alert is kept. @default 30 days (see `ALERTS_RETENTION_MS`) */
  retentionMs: number;
}

/**
 * Takes each alert consumed from the `alerts` queue and stores it, once per job id. A store that
 * fails throws out of {@link AlertInbox.receive}: the bus retries the job with backoff and
 * dead-letters it after the last attempt, so an alert is never dropped silently.
 */
export class AlertInbox {
  constructor(private readonly deps: AlertInboxDeps) {
    if (!Number.isInteger(deps.retentionMs) || deps.retentionMs <= 0) {
      throw new Error(`AlertInbox retentionMs must be a positive whole number of ms (got ${deps.retentionMs}); set ALERTS_RETENTION_MS`);
    }
  }

  async receive(alert: Alert, meta: Pick<MessageMeta, 'jobId'>): Promise<SaveOutcome> {
    const record = alertRecord(alert, meta.jobId, new Date(this.deps.clock.now()), this.deps.retentionMs);
    const outcome = await this.deps.store.save(record);
    const fields = { jobId: meta.jobId, kind: alert.kind, processId: alert.processId, orderId: alert.orderId, step: alert.step };
    if (outcome === 'stored') this.deps.logger.info({ ...fields, reason: alert.reason }, 'alert stored');
    else this.deps.logger.debug(fields, 'alert already stored; redelivery ignored');
    return outcome;
  }
}
