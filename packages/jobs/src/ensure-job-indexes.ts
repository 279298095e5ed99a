import type { Db } from 'mongodb';
import { JobCollectionNames } from './job-collection-names';

/**
 * Creates the indexes job scheduling relies on. Idempotent; the scheduler calls it at start and
 * the CLI before writing, so whichever runs first prepares the database.
 * - `jobSpecificationKey` unique: creating a key twice is refused.
 * - `status + nextFireTime`: the runner's due-jobs query; `jobRequestor`: listing by requestor.
 * - `deleteTime` TTL (expireAfterSeconds 0) on both collections: finished jobs and superseded
 *   status entries are removed once their deleteTime has passed.
 */
export async function ensureJobIndexes(db: Db): Promise<void> {
  await db.collection(JobCollectionNames.jobSpecifications).createIndexes([
    { key: { jobSpecificationKey: 1 }, name: 'jobSpecificationKey_unique', unique: true },
    { key: { status: 1, nextFireTime: 1 }, name: 'due' },
    { key: { jobRequestor: 1 }, name: 'byRequestor' },
    { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
  ]);
  await db.collection(JobCollectionNames.jobExecutionStatus).createIndexes([
    { key: { jobSpecificationId: 1, updatedTime: 1 }, name: 'byJob' },
    { key: { deleteTime: 1 }, name: 'ttl', expireAfterSeconds: 0 },
  ]);
}
