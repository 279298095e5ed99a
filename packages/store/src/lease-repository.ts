import { MongoServerError, type Collection, type Db } from 'mongodb';
import { CollectionNames } from './collection-names';

interface LeaseDocument {
  _id: string;
  holder: string;
  expiresAt: Date;
}

/**
 * A named lease in MongoDB: one holder at a time, taken over once it expires. Supervisors use it
 * so that one sweeps and the others stand by; conditional process updates keep it safe regardless.
 */
export class LeaseRepository {
  private readonly leases: Collection<LeaseDocument>;

  constructor(db: Db) {
    this.leases = db.collection<LeaseDocument>(CollectionNames.leases);
  }

  /** Takes or renews the lease; true when `holder` holds it until `now + ttlMs`. */
  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + ttlMs);
    try {
      const result = await this.leases.updateOne(
        { _id: name, $or: [{ holder }, { expiresAt: { $lte: now } }] },
        { $set: { holder, expiresAt } },
        { upsert: true },
      );
      return result.matchedCount === 1 || result.upsertedCount === 1;
    } catch (e) {
      // Upsert raced with a live holder's document: someone else holds it.
      if (e instanceof MongoServerError && e.code === 11000) return false;
      throw e;
    }
  }

  /** Gives the lease up so a standby can take it at once. */
  async release(name: string, holder: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, holder });
  }
}
