import { MongoClient, ReadPreference, type Db } from 'mongodb';
import { storeClientOptions } from './store-client-options';

/** An open connection to the state store. */
export interface StoreConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * Connects to MongoDB and returns the database. Fails fast (5 s server selection) with a message
 * that says what to do, instead of hanging when MongoDB is not there.
 *
 * Writes are majority-acknowledged and retried once by the driver on a step-down (see
 * {@link storeClientOptions}). Every read of the returned database goes to the primary, whatever
 * the URL's `readPreference`: the claim and the sweep must see the latest committed revision, and
 * the engine's read-back after a lost commit answer must not take a lagging secondary's old
 * revision for "my write did not happen".
 */
export async function connectStore(url: string, dbName: string): Promise<StoreConnection> {
  const client = new MongoClient(url, storeClientOptions(url));
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `Cannot reach MongoDB at ${url}: ${(e as Error).message}. Start MongoDB, fix MONGO_URL, or run through the launcher (npm run demo), which starts one.`,
      { cause: e },
    );
  }
  let closing: Promise<void> | undefined;
  const db = client.db(dbName, { readPreference: ReadPreference.primary });
  return { client, db, close: () => (closing ??= client.close()) };
}
