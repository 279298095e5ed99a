import type { AlertRecord } from './alert-record';

/** Whether {@link AlertStore.save} stored the alert or found it already stored. */
export type SaveOutcome = 'stored' | 'duplicate';

/**
 * Where the dashboard keeps the alerts it consumes. An interface so the HTTP layer can be tested
 * against a fake; {@link MongoAlertStore} is the real one.
 */
export interface AlertStore {
  /** Stores the record unless one with its `_id` exists; never overwrites. */
  save(record: AlertRecord): Promise<SaveOutcome>;
  /** The `limit` most recently received alerts, newest first. */
  newest(limit: number): Promise<AlertRecord[]>;
}
