import type { Collection, Db } from 'mongodb';
import type { AgentRegistration } from '@sas/contracts';
import { CollectionNames } from './collection-names';

/** Agent instances and what they serve (`agent_registrations`), written by agents, read by operators' tools. */
export class AgentRegistrationRepository {
  private readonly registrations: Collection<AgentRegistration>;

  constructor(db: Db) {
    this.registrations = db.collection<AgentRegistration>(CollectionNames.agentRegistrations);
  }

  /**
   * Writes one instance's registration whole (start and every heartbeat): a document the TTL
   * index removed while the instance was cut off from MongoDB comes back with the next beat.
   */
  async put(doc: AgentRegistration): Promise<void> {
    await this.registrations.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  /** Removes an instance that is closing cleanly, so it is not listed as live until its TTL passes. */
  async remove(id: string): Promise<void> {
    await this.registrations.deleteOne({ _id: id });
  }

  /**
   * Instances live at `now` (their `deleteTime` not passed: the TTL monitor runs only once a
   * minute, so an expired document may still be there), by agent then instance.
   */
  listLive(now: Date): Promise<AgentRegistration[]> {
    return this.registrations.find({ deleteTime: { $gt: now } }).sort({ agent: 1, instanceId: 1 }).toArray();
  }
}
