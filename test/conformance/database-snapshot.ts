import type { Document, MongoClient } from 'mongodb';

/**
 * Everything the driver can see of some databases: their collections (in `listCollections` order,
 * with options and UUIDs), each one's index definitions and its documents in natural order.
 * Collections with a TTL index are left out: their monitor may remove documents at any moment.
 * Two snapshots around a restart of a persisted server must be equal.
 */
export async function snapshotDatabases(client: MongoClient, names: readonly string[]): Promise<Document[]> {
  const out: Document[] = [];
  for (const name of names) {
    const db = client.db(name);
    for (const info of await db.listCollections().toArray()) {
      const collection = db.collection(info.name);
      const indexes = await collection.listIndexes().toArray();
      if (indexes.some((index) => index['expireAfterSeconds'] !== undefined)) continue;
      out.push({ db: name, info, indexes, documents: await collection.find().toArray() });
    }
  }
  return out;
}
