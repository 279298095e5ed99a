import type { Doc } from '../bson/bson-types';
import type { CursorManager } from '../cursors/cursor-manager';
import type { ReplicaSetMember } from '../replication/replica-set-member';
import type { RetryableWriteLog } from '../replication/retryable-write-log';
import type { Catalog } from '../storage/catalog';

/** What a command handler may use: the data, the open cursors, the replica-set role, the connection and the time. */
export interface CommandContext {
  readonly catalog: Catalog;
  readonly cursors: CursorManager;
  /** Standalone, or the one member of a replica set (which may be stepped down). */
  readonly replication: ReplicaSetMember;
  /** Replies of retryable writes, answered again to the driver's retry. */
  readonly retryableWrites: RetryableWriteLog;
  readonly connectionId: number;
  /** Wall-clock time for `$currentDate`, `localTime` and cursor timeouts. */
  readonly now: () => Date;
}

/**
 * One command implementation: takes the command document and its database, returns the reply
 * body (with `ok: 1`), or throws a CommandError. It runs synchronously, which is what makes
 * every command atomic: Node runs one at a time.
 */
export type CommandHandler = (cmd: Doc, db: string, ctx: CommandContext) => Doc;
