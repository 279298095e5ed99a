import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { AlertRecord } from './alert-record';
import type { AlertStore, SaveOutcome } from './alert-store';

/** The MongoDB collection holding the alerts dashboards consumed. */
export const ALERTS_COLLECTION = 'alerts';

/** MongoDB's error code for a duplicate key. */
const DUPLICATE_KEY = 11000;

/**
 * {@link AlertStore} on MongoDB. An insert keyed by the job id makes storing idempotent across
 * redeliveries and across several dashboards: the second insert of the same `_id` is refused by
 * MongoDB and reported as `'duplicate'`, so the first stored copy (and its `receivedAt`) stays.
 */
export class MongoAlertStore implements AlertStore {
  private readonly alerts: Collection<AlertRecord>;

  constructor(db: Db) {
    this.alerts = db.collection<AlertRecord>(ALERTS_COLLECTION);
  }

  /**
   * Creates the collection's indexes; idempotent, called once at start.
   * - `deleteTime` TTL (expireAfterSeconds 0): an alert is removed once its retention has passed.
   *   The retention is in each document, not in the index, so changing `ALERTS_RETENTION_MS` needs
   *   no index change and dashboards with different settings do not conflict.
   * - `receivedAt, _id` descending: the newest-first list.
   */
  async ensureIndexes(): Promise<void> {
    await this.alerts.createIndexes([
      { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
      { key: { receivedAt: -1, _id: -1 }, name: 'recent' },
    ]);
  }

  async save(record: AlertRecord): Promise<SaveOutcome> {
    try {
      await this.alerts.insertOne(record);
      return 'stored';
    } catch (e) {
      if (e instanceof MongoServerError && e.code === DUPLICATE_KEY) return 'duplicate';
      throw e;
    }
  }

  newest(limit: number): Promise<AlertRecord[]> {
    // _id breaks ties between alerts received in the same millisecond, so the order is stable.
    return this.alerts.find().sort({ receivedAt: -1, _id: -1 }).limit(limit).toArray();
  }
}
