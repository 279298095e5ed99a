import { QueueNames, SCHEMA_VERSION } from '@sas/contracts';
import { ensureError, type Clock } from '@sas/runtime';
import type { Action } from '@sas/workflow';
import type { Logger } from 'pino';
import type { Outbox } from './outbox';
import type { TransitionTrace } from './transition-trace';

/** A dispatch that could not be sent: the engine releases its attempt rather than wait for complete-by. */
export interface UnsentDispatch {
  attempt: number;
  error: string;
}

/**
 * Performs a committed transition's dispatches and wake-ups (status events and alerts travel in
 * the process's outbox instead). The state is already durable, so a failed send is logged, not
 * thrown: a dispatch that did not leave is reported back so the engine can release its attempt,
 * a lost wake-up is covered by the schedulers' poll.
 */
export class ActionPerformer {
  constructor(
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Performs every action; returns the dispatches that could not be sent (a parallel group sends
   * several in one transition, each released on its own), in order.
   */
  async perform(processId: string, actions: readonly Action[], trace?: TransitionTrace): Promise<UnsentDispatch[]> {
    const unsent: UnsentDispatch[] = [];
    for (const action of actions) {
      try {
        await this.performOne(processId, action, trace);
      } catch (e) {
        const err = ensureError(e);
        this.logger.error({ err, processId, action: action.type }, 'action not performed; recovery will cover it');
        if (action.type === 'dispatch') unsent.push({ attempt: action.request.attempt, error: err.message });
      }
    }
    return unsent;
  }

  private async performOne(processId: string, action: Action, trace: TransitionTrace | undefined): Promise<void> {
    switch (action.type) {
      case 'dispatch': {
        const span = trace?.dispatch(action.request);
        const request = span ? { ...action.request, traceparent: span.traceparent } : action.request;
        try {
          // The job id dedupes a re-send of the same attempt; BullMQ job ids must not contain ':'.
          await this.outbox.send(action.queue, request, { jobId: `${processId}.${action.request.attempt}` });
        } finally {
          span?.end();
        }
        return;
      }
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
