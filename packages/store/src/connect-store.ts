import { MongoClient, ReadPreference, type Db } from 'mongodb';
import { describeMongoTarget } from './mongo-target-description';
import { DEFAULT_STORE_LIVENESS, storeClientOptions, type StoreLiveness } from './store-client-options';
import { StoreStallWatch, type StallReporter } from './store-stall-watch';

/** An open connection to the state store. */
export interface StoreConnection {
  client: MongoClient;
  db: Db;
  /** True while a call to MongoDB has waited past its bound (always false without `stalls`). */
  isStalled(): boolean;
  close(): Promise<void>;
}

/** Options of {@link connectStore}. */
export interface ConnectStoreOptions {
  /** Bounds on each wait (docs/liveness.md). @default DEFAULT_STORE_LIVENESS */
  liveness?: Partial<StoreLiveness> & { stallMs?: number };
  /** Logs which MongoDB and database it connected to (a pino logger fits). */
  logger?: { info(fields: Record<string, unknown>, message: string): void };
  /** Where a call waiting past `liveness.stallMs` is reported while it waits; unwatched without it. */
  stalls?: StallReporter;
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
export async function connectStore(url: string, dbName: string, options: ConnectStoreOptions = {}): Promise<StoreConnection> {
  const liveness = { ...DEFAULT_STORE_LIVENESS, ...options.liveness };
  // Command monitoring feeds the stall watch; without a watch nobody listens, so it stays off.
  const client = new MongoClient(url, { ...storeClientOptions(url, liveness), monitorCommands: options.stalls !== undefined });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `Cannot reach MongoDB at ${describeMongoTarget(url).mongo}: ${(e as Error).message}. Start MongoDB, fix MONGO_URL, or run sas with npx sas up, which starts one.`,
      { cause: e },
    );
  }
  let closing: Promise<void> | undefined;
  const db = client.db(dbName, { readPreference: ReadPreference.primary });
  // Which MongoDB, once: a service left on the default by mistake says so.
  const target = describeMongoTarget(url);
  options.logger?.info({ ...target, database: dbName, liveness }, `connected to MongoDB at ${target.mongo}, database '${dbName}'`);
  const watch = options.stalls ? new StoreStallWatch({ client, db, stalls: options.stalls, stallMs: liveness.stallMs }) : undefined;
  return {
    client,
    db,
    isStalled: () => watch?.isStalled() ?? false,
    close: () => {
      watch?.stop();
      return (closing ??= client.close());
    },
  };
}
