import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { AgentPauseDocument } from '@sas/contracts';
import type { AgentPauseStore } from './agent-pause-store';
import { CollectionNames } from './collection-names';
import type { CommitResult } from './commit-result';

const DUPLICATE_KEY = 11000;

/** {@link AgentPauseStore} on MongoDB's `agent_pauses` collection (a handful of documents, no index needed). */
export class MongoAgentPauseStore implements AgentPauseStore {
  private readonly pauses: Collection<AgentPauseDocument>;

  constructor(db: Db) {
    this.pauses = db.collection<AgentPauseDocument>(CollectionNames.agentPauses);
  }

  list(): Promise<AgentPauseDocument[]> {
    return this.pauses.find({}).sort({ _id: 1 }).toArray();
  }

  get(agent: string): Promise<AgentPauseDocument | null> {
    return this.pauses.findOne({ _id: agent });
  }

  async write(next: AgentPauseDocument, expectedRevision: number | null): Promise<CommitResult> {
    if (expectedRevision === null) {
      try {
        await this.pauses.insertOne(next);
        return { ok: true };
      } catch (e) {
        if (e instanceof MongoServerError && e.code === DUPLICATE_KEY) return { ok: false, reason: 'conflict' };
        throw e;
      }
    }
    const result = await this.pauses.replaceOne({ _id: next._id, revision: expectedRevision }, next);
    return result.matchedCount === 1 ? { ok: true } : { ok: false, reason: 'conflict' };
  }
}
