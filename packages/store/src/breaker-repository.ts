import type { Collection, Db } from 'mongodb';
import type { BreakerStateDocument } from '@sas/contracts';
import { CollectionNames } from './collection-names';

/** Circuit breaker states reported by agents, read by the dashboard and tests. */
export class BreakerRepository {
  private readonly breakers: Collection<BreakerStateDocument>;

  constructor(db: Db) {
    this.breakers = db.collection<BreakerStateDocument>(CollectionNames.agentBreakers);
  }

  /** Upserts one agent instance's breaker state (last write wins: only that instance writes it). */
  async report(doc: BreakerStateDocument): Promise<void> {
    await this.breakers.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  list(): Promise<BreakerStateDocument[]> {
    return this.breakers.find({}).sort({ _id: 1 }).toArray();
  }
}
