import { SCHEMA_VERSION, type BulkOperationDocument, type OperatorCommand, type OperatorCommandResult } from '@sas/contracts';
import { ensureError, type Clock } from '@sas/runtime';
import type { Logger } from 'pino';
import type { BulkCandidates } from './bulk-candidates';
import type { BulkOperationStore } from './bulk-operation-store';
import { bulkCommandId, claimPage, commitPage, type BulkOutcome } from './bulk-progress';

/**
 * Applies one operator command and answers its outcome: in the scheduler, `OperatorCommandHandler.handle`,
 * the path a single command from the dashboard or the CLI takes. It throws when the command could
 * not be applied and may be retried (the process kept changing, the store failed).
 */
export type ApplyOperatorCommand = (command: OperatorCommand) => Promise<OperatorCommandResult>;

/** A lease per operation, so one runner at a time works on it; `@sas/store`'s `LeaseRepository` satisfies it. */
export interface BulkLease {
  acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}

/** Options of {@link BulkRunner}. */
export interface BulkRunnerOptions {
  /** Lease holder, and the runner named on the operation. */
  instanceId: string;
  /** Time between looks for running operations; 0 disables the timer (a test calls `poll`). @default 1000 */
  pollIntervalMs?: number;
  /** How long an operation's lease lasts: another runner resumes it this long after its runner died. @default 15000 */
  leaseTtlMs?: number;
  /** Processes read per page; the cursor and the counts are committed once per page. @default 50 */
  pageSize?: number;
  /** How long a finished operation is kept. @default 7 days */
  retentionMs?: number;
  /** Tries of one process whose command throws, before it counts as failed. @default 3 */
  maxTries?: number;
}

/** Totals of one runner, for `/metrics`. */
export interface BulkRunnerCounters {
  /** Operations this runner finished, by command. */
  finished: Record<'resubmit' | 'cancel', number>;
  /** Processes this runner acted on, by command and outcome. */
  processes: Record<'resubmit' | 'cancel', Record<BulkOutcome['kind'], number>>;
  /** Pages that could not be committed because another runner had moved the operation on. */
  lostPages: number;
}

/** The lease of one operation. */
export function bulkLeaseName(operationId: string): string {
  return `bulk:${operationId}`;
}

/**
 * Runs bulk operations, one page at a time, in the scheduler service. Any number of runners may
 * poll: each operation has its own lease, so one runner works on it at a time, and one whose
 * runner died is resumed by another after the lease lapses, from the last committed cursor.
 *
 * A page's matching processes are written on the operation before any is acted on, then the page
 * is committed (cursor and counts); both writes are conditional on the revision read. A crash in
 * between leaves the page to the next runner, which acts on the same processes; each process's
 * command id is derived from the operation and the process, so the process engine answers a
 * repeat with what it did the first time instead of acting again — even when the process has
 * failed again since (decision 50).
 */
export class BulkRunner {
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;
  private readonly counters: BulkRunnerCounters = {
    finished: { resubmit: 0, cancel: 0 },
    processes: { resubmit: { done: 0, refused: 0, failed: 0 }, cancel: { done: 0, refused: 0, failed: 0 } },
    lostPages: 0,
  };

  constructor(
    private readonly store: BulkOperationStore,
    private readonly candidates: BulkCandidates,
    private readonly apply: ApplyOperatorCommand,
    private readonly lease: BulkLease,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: BulkRunnerOptions,
  ) {
    if (!options.instanceId) throw new Error('BulkRunner needs an instanceId: it names the lease holder');
  }

  private get leaseTtlMs(): number {
    return this.options.leaseTtlMs ?? 15_000;
  }

  /** Polls now and every `pollIntervalMs`. */
  start(): void {
    const interval = this.options.pollIntervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => void this.poll(), interval);
      this.timer.unref();
    }
    void this.poll();
  }

  /** Totals for `/metrics`. */
  metrics(): BulkRunnerCounters {
    return structuredClone(this.counters);
  }

  /** Works on every running operation whose lease it can take, until each is finished. Never overlaps itself. */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    try {
      for (const op of await this.store.findRunning(20)) {
        if (this.closed) return;
        await this.runLeased(op);
      }
    } catch (e) {
      this.logger.warn({ err: ensureError(e) }, 'bulk operations poll failed; the next poll retries');
    }
  }

  private async runLeased(op: BulkOperationDocument): Promise<void> {
    const name = bulkLeaseName(op._id);
    if (!(await this.renew(name))) return;
    const log = this.logger.child({ bulkOperation: op._id, command: op.command });
    log.info({ cursor: op.cursor, progress: op.progress }, op.cursor === null ? 'bulk operation started' : 'bulk operation resumed from its cursor');
    let current: BulkOperationDocument | null = op;
    while (current && !this.closed) {
      current = await this.runPage(current, log);
      // The lease is renewed before every page: a runner that lost it stops before acting again.
      if (current && !(await this.renew(name))) {
        log.info('bulk operation lease taken by another runner; leaving the operation to it');
        return;
      }
    }
    await this.lease.release(name, this.options.instanceId).catch(() => undefined);
  }

  /**
   * One page: claim it (unless a runner before this one did and died), act on its processes, then
   * commit. The operation after it, or null when it is finished or moved on by another runner.
   */
  private async runPage(op: BulkOperationDocument, log: Logger): Promise<BulkOperationDocument | null> {
    const ctx = { now: new Date(this.clock.now()), runner: this.options.instanceId, retentionMs: this.options.retentionMs ?? 7 * 24 * 3600_000 };
    let current = op;
    /** The revision the store holds, as far as this runner knows. */
    let stored = op.revision;
    if (!current.page) {
      const page = await this.candidates.page(op.filter, op.createdAt, op.cursor, this.options.pageSize ?? 50);
      current = claimPage(op, page, ctx);
      // A page with nothing to act on needs no claim: committing it directly is the same.
      if (page.matches.length > 0) {
        if (!(await this.committed(current, stored, log))) return null;
        stored = current.revision;
      }
    } else {
      log.info({ processes: current.page.processIds.length }, 'bulk operation page left unfinished by its runner; finishing it');
    }
    const outcomes: BulkOutcome[] = [];
    for (const processId of current.page?.processIds ?? []) outcomes.push(await this.act(op, processId));
    const next = commitPage(current, outcomes, ctx);
    if (!(await this.committed(next, stored, log))) return null;
    for (const o of outcomes) this.counters.processes[op.command][o.kind] += 1;
    log.info({ progress: next.progress, expected: next.expected, cursor: next.cursor }, `bulk ${op.command}: ${next.progress.matched} of about ${next.expected} processes`);
    if (next.state !== 'Finished') return next;
    this.counters.finished[op.command] += 1;
    log.info({ progress: next.progress }, 'bulk operation finished');
    return null;
  }

  /** Commits on the revision this runner read; false (logged) when another runner moved the operation on. */
  private async committed(next: BulkOperationDocument, expectedRevision: number, log: Logger): Promise<boolean> {
    if (await this.store.commit(next, expectedRevision)) return true;
    this.counters.lostPages += 1;
    log.warn({ revision: expectedRevision }, 'bulk operation moved on by another runner; leaving it to that runner (its page counts, not this one)');
    return false;
  }

  private async act(op: BulkOperationDocument, processId: string): Promise<BulkOutcome> {
    const command: OperatorCommand = {
      schemaVersion: SCHEMA_VERSION,
      command: op.command,
      processId,
      by: `${op.by} (bulk ${op._id})`,
      reason: op.reason,
      commandId: bulkCommandId(op._id, processId),
    };
    let error: Error | undefined;
    for (let i = 0; i < (this.options.maxTries ?? 3); i++) {
      try {
        const result = await this.apply(command);
        return { processId, kind: result.ok ? 'done' : 'refused', message: result.message };
      } catch (e) {
        error = ensureError(e);
      }
    }
    this.logger.warn({ err: error, bulkOperation: op._id, processId }, 'bulk operation could not act on a process; counted as failed');
    return { processId, kind: 'failed', message: error?.message ?? 'unknown error' };
  }

  private renew(name: string): Promise<boolean> {
    return this.lease.acquire(name, this.options.instanceId, new Date(this.clock.now()), this.leaseTtlMs);
  }

  /** Stops polling, lets the page in flight commit, and gives its lease up. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      if (this.timer) clearInterval(this.timer);
      await this.polling;
    })();
    return this.closing;
  }
}
