import type { Doc } from '../bson/bson-types';
import { isPlainObject } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';
import { IN_MEMORY_JOURNAL } from '../storage/in-memory-journal';
import type { StorageJournal } from '../storage/storage-journal';

/** What was recorded for one session: its latest transaction number and that write's reply. */
interface SessionEntry {
  txnNumber: bigint;
  reply: Doc;
}

/** The session id and transaction number of a retryable write, or undefined for any other command. */
function retryableWriteId(cmd: Doc): { session: string; txnNumber: bigint } | undefined {
  const lsid = cmd['lsid'];
  const txn = cmd['txnNumber'];
  if (!isPlainObject(lsid) || txn === undefined || txn === null) return undefined;
  const id = lsid['id'] as { toString(encoding: 'hex'): string } | undefined;
  if (id === undefined) return undefined;
  return { session: id.toString('hex'), txnNumber: BigInt(String(txn)) };
}

/**
 * Makes a retried write apply at most once, as a replica-set member does: the driver sends each
 * retryable write with its session (`lsid`) and a transaction number, and sends the very same
 * pair again when it retries after a step-down or a lost connection. The reply of the first run is
 * kept per session and answered to the retry, so an insert is not refused as a duplicate of
 * itself and an update is not applied twice. Bounded: the least recently used sessions go first.
 * In the persisted mode every entry is journaled in the same commit as the write it answers, so
 * a retry after the server was killed between that commit and the reply is still answered.
 */
export class RetryableWriteLog {
  private readonly sessions = new Map<string, SessionEntry>();

  constructor(
    private readonly capacity = 10_000,
    private readonly journal: Pick<StorageJournal, 'sessionRecorded' | 'sessionForgotten'> = IN_MEMORY_JOURNAL,
  ) {}

  /** Puts back an entry read from the data file (oldest first), without recording it again. */
  restore(session: string, txnNumber: bigint, reply: Doc): void {
    this.sessions.delete(session);
    this.sessions.set(session, { txnNumber, reply });
  }

  /**
   * The recorded reply when `cmd` retries a write that already ran; undefined when it must run.
   * Throws TransactionTooOld for a transaction number older than the session's latest, as MongoDB does.
   */
  replay(cmd: Doc): Doc | undefined {
    const id = retryableWriteId(cmd);
    if (id === undefined) return undefined;
    const entry = this.sessions.get(id.session);
    if (entry === undefined || id.txnNumber > entry.txnNumber) return undefined;
    if (id.txnNumber < entry.txnNumber) {
      throw new CommandError(
        'TransactionTooOld',
        `Retryable write with txnNumber ${id.txnNumber} is prohibited on session because a newer retryable write with txnNumber ${entry.txnNumber} has already started on this session.`,
      );
    }
    return entry.reply;
  }

  /** Keeps the reply of a write that ran (only successful replies: a refused write did not run). */
  record(cmd: Doc, reply: Doc): void {
    const id = retryableWriteId(cmd);
    if (id === undefined || reply['ok'] !== 1) return;
    this.sessions.delete(id.session);
    this.sessions.set(id.session, { txnNumber: id.txnNumber, reply });
    this.journal.sessionRecorded(id.session, id.txnNumber, reply);
    if (this.sessions.size > this.capacity) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.forget(oldest);
    }
  }

  /** Forgets the sessions a driver ended (`endSessions`). */
  endSessions(cmd: Doc): void {
    const ids = cmd['endSessions'];
    if (!Array.isArray(ids)) return;
    for (const lsid of ids) {
      const id = isPlainObject(lsid) ? (lsid['id'] as { toString(encoding: 'hex'): string } | undefined) : undefined;
      if (id !== undefined) this.forget(id.toString('hex'));
    }
  }

  private forget(session: string): void {
    if (this.sessions.delete(session)) this.journal.sessionForgotten(session);
  }
}
