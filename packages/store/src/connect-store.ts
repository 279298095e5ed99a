import { MongoClient, type Db } from 'mongodb';

/** An open connection to the state store. */
export interface StoreConnection {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * Connects to MongoDB and returns the database. Fails fast (5 s server selection) with a message
 * that says what to do, instead of hanging when MongoDB is not there.
 */
export async function connectStore(url: string, dbName: string): Promise<StoreConnection> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 5000, maxPoolSize: 20 });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `Cannot reach MongoDB at ${url}: ${(e as Error).message}. Start MongoDB, fix MONGO_URL, or run through the launcher (npm run demo), which starts one.`,
      { cause: e },
    );
  }
  let closing: Promise<void> | undefined;
  return { client, db: client.db(dbName), close: () => (closing ??= client.close()) };
}
