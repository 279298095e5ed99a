import type { Alert } from '@sas/contracts';

/**
 * One operator alert as the dashboard keeps it in the `alerts` collection. The alert is stored as
 * it arrived, under `alert`, so a field the engine adds later is kept without a change here.
 */
export interface AlertRecord {
  /** The BullMQ job id of the delivery. The engine derives it from process and revision, so a
   * redelivery, or a second dashboard receiving the same job, maps to the same document. */
  _id: string;
  alert: Alert;
  /** When a dashboard stored it; the API lists newest first by this. */
  receivedAt: Date;
  /** When MongoDB's TTL monitor removes it: `receivedAt` + the retention. */
  deleteTime: Date;
}

/** An alert as `GET /api/alerts` lists it, in the same shape as a dead letter: id, time, data. */
export interface AlertEntry {
  id: string;
  receivedAt: string;
  data: Alert;
}

/**
 * The document to store for an alert delivered as job `jobId` at `receivedAt`, kept for
 * `retentionMs`. Pure: the caller supplies the time. Throws when the job has no id, because the
 * id is what makes storing it twice harmless (BullMQ always assigns one, so this is a wiring bug).
 */
export function alertRecord(alert: Alert, jobId: string, receivedAt: Date, retentionMs: number): AlertRecord {
  if (jobId.length === 0) throw new Error(`Alert '${alert.kind}' (${alert.reason}) came without a job id, so it cannot be stored idempotently; this is a bug in the consumer wiring`);
  return { _id: jobId, alert, receivedAt, deleteTime: new Date(receivedAt.getTime() + retentionMs) };
}

/** The API's view of a stored alert: dates as ISO strings, no storage fields. */
export function alertEntry(record: AlertRecord): AlertEntry {
  return { id: record._id, receivedAt: record.receivedAt.toISOString(), data: record.alert };
}
