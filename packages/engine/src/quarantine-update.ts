import { QueueNames, SCHEMA_VERSION, type OutboxEntry } from '@sas/contracts';
import type { ProcessSummary, QuarantineFields } from '@sas/store';

/** What giving a process up to an operator writes: its new fields and what it owes the world. */
export interface QuarantineUpdate {
  fields: QuarantineFields;
  owed: OutboxEntry[];
}

/**
 * Builds the write that puts a process this build cannot handle into `Error`, from its summary
 * alone (its document may not even decode): an alert and a `Failed` status for the application,
 * and a history entry, all in its outbox. The attempt moves on, so a reply of the held step is
 * stale. Pure: the caller commits it conditionally on `summary.revision`.
 */
export function quarantineUpdate(summary: ProcessSummary, reason: string, now: number, who: string): QuarantineUpdate {
  const at = new Date(now);
  const revision = summary.revision + 1;
  const attempt = summary.attempt + 1;
  const why = `cannot be handled: ${reason}`;
  const fields: QuarantineFields = {
    state: 'Error',
    lockedBy: null,
    completeBy: null,
    reason: why,
    revision,
    attempt,
    updatedAt: at,
    deleteTime: null,
  };
  const owed: OutboxEntry[] = [
    {
      kind: 'history',
      id: `${summary._id}.${revision}.h`,
      entry: { processId: summary._id, orderId: summary.orderId, who, at, from: summary.state, to: 'Error', why, attempt, step: null, deleteTime: null },
    },
    {
      kind: 'message',
      id: `${summary._id}.${revision}.0`,
      queue: QueueNames.alerts,
      message: {
        schemaVersion: SCHEMA_VERSION,
        kind: 'ProcessError',
        processId: summary._id,
        orderId: summary.orderId,
        reason: `${why}; it is in Error: fix the cause (deploy its workflow version, or remove the process) and resubmit or cancel it`,
        at: now,
      },
    },
  ];
  if (summary.replyTo) {
    const id = `${summary._id}.${revision}.1`;
    owed.push({
      kind: 'message',
      id,
      queue: summary.replyTo,
      message: { schemaVersion: SCHEMA_VERSION, eventId: id, orderId: summary.orderId, processId: summary._id, status: 'Failed', reason: why, at: now },
    });
  }
  return { fields, owed };
}
