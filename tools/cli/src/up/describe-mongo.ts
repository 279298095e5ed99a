import type { MongoTarget } from '@sas/stack';

/** What `sas up` says of the MongoDB it resolved: which one, and whether the data outlives the run. */
export function describeMongo(mongo: MongoTarget): string {
  switch (mongo.kind) {
    case 'external':
      return `MongoDB: ${mongo.url} (MONGO_URL)`;
    case 'memory-server':
      return `MongoDB: a private mongod (${mongo.reason}), its data in a temporary folder removed when sas up stops`;
    case 'embedded':
      return mongo.dataDir === undefined
        ? `MongoDB: the embedded server (${mongo.reason}): everything is kept in memory and gone when sas up stops (--in-memory)`
        : `MongoDB: the embedded server at ${mongo.url}, its data in ${mongo.dataDir} (SQLite, written before each write is acknowledged)`;
  }
}
