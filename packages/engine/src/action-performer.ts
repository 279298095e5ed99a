import { QueueNames, SCHEMA_VERSION } from '@sas/contracts';
import { ensureError, type Clock } from '@sas/runtime';
import type { Action } from '@sas/workflow';
import type { Logger } from 'pino';
import type { Outbox } from './outbox';

/**
 * Performs a committed transition's dispatches and wake-ups (status events and alerts travel in
 * the process's outbox instead). The state is already durable, so a failed send is
 * logged, not thrown: a dispatch that never left is recovered by the supervisor after complete-by,
 * a lost wake-up by the schedulers' poll.
 */
export class ActionPerformer {
  constructor(
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async perform(processId: string, actions: readonly Action[]): Promise<void> {
    for (const action of actions) {
      try {
        await this.performOne(processId, action);
      } catch (e) {
        this.logger.error({ err: ensureError(e), processId, action: action.type }, 'action not performed; recovery will cover it');
      }
    }
  }

  private async performOne(processId: string, action: Action): Promise<void> {
    switch (action.type) {
      case 'dispatch':
        // The job id dedupes a re-send of the same attempt; BullMQ job ids must not contain ':'.
        await this.outbox.send(action.queue, action.request, { jobId: `${processId}.${action.request.attempt}` });
        return;
      case 'status':
        return; // delivered through the process's outbox (OutboxDelivery)
      case 'alert':
        // The alert message itself goes through the outbox; the log line is for whoever reads logs.
        this.logger.warn({ alert: action.alert }, `ALERT ${action.alert.kind}: ${action.alert.reason}`);
        return;
      case 'wake': {
        const delayMs = Math.max(0, action.atMs - this.clock.now());
        await this.outbox.send(
          QueueNames.schedulerReady,
          { schemaVersion: SCHEMA_VERSION, processId, reason: delayMs > 0 ? 'notBefore reached' : 'released' },
          delayMs > 0 ? { delayMs } : {},
        );
        return;
      }
    }
  }
}
