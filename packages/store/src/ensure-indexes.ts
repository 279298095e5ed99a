import type { Db } from 'mongodb';
import { CollectionNames } from './collection-names';

/**
 * Creates every index the system relies on. Idempotent; each service calls it at start so
 * whichever starts first prepares the database.
 * - `orderId` unique: a duplicate submission creates nothing new.
 * - `state + notBefore`: the scheduler's claim query; `state + completeBy`: the supervisor's sweep;
 *   `updatedAt`: the dashboard's list; `outboxSince`: the sweep for owed outboxes.
 * - `deleteTime` TTL (expireAfterSeconds 0): a document is removed once its deleteTime has passed
 *   (processes, their events, breaker reports and agent registrations).
 */
export async function ensureIndexes(db: Db): Promise<void> {
  const processes = db.collection(CollectionNames.processes);
  await processes.createIndexes([
    { key: { orderId: 1 }, name: 'orderId_unique', unique: true },
    { key: { state: 1, notBefore: 1 }, name: 'claim' },
    { key: { state: 1, completeBy: 1 }, name: 'sweep' },
    // The dashboard lists processes newest first.
    { key: { updatedAt: -1 }, name: 'recent' },
    // The supervisor's sweep for outboxes a crash left behind reads only owed ones, not every process.
    { key: { outboxSince: 1 }, name: 'owed' },
    // The release of work held for a paused agent, longest held first, once the agent is resumed.
    { key: { heldFor: 1, updatedAt: 1 }, name: 'held' },
    { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
  ]);
  await db.collection(CollectionNames.processEvents).createIndexes([
    { key: { processId: 1, at: 1 }, name: 'byProcess' },
    { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
  ]);
  await db.collection(CollectionNames.agentBreakers).createIndexes([
    { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
  ]);
  // An agent that stops heartbeating (a crash, a lost host) drops out of the live list by itself.
  await db.collection(CollectionNames.agentRegistrations).createIndexes([
    { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
  ]);
}
