/**
 * Which MongoDB a run uses, in the order they are tried (DESIGN.md, "MongoDB for tests and the
 * local default"): one the user gave (`MONGO_URL`), a real `mongod` started through
 * mongodb-memory-server-core, or our embedded wire-protocol server.
 */
export type MongoKind = 'external' | 'memory-server' | 'embedded';

import type { ManagedProcess } from './managed-process';

/** A MongoDB every service of a run can reach over TCP, and how to release it. */
export interface MongoTarget {
  /** Connection string to hand to services as MONGO_URL. */
  readonly url: string;
  readonly kind: MongoKind;
  /** Why this one was picked, for the log and the demo banner. */
  readonly reason: string;
  /** Stops the server if this run started it; a no-op for `external`. Never throws on a dead server. */
  stop(): Promise<void>;
  /** Where the server keeps its data, when this run started it on a data folder (the embedded server's `--data-dir`). */
  readonly dataDir?: string;
  /** The server's process, when this run started it as a child it can restart (the embedded server). */
  readonly process?: ManagedProcess;
  /** Starts that process again at the same URL (and data folder) and waits until it listens. */
  restart?(): Promise<void>;
}
