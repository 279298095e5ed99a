import { randomUUID } from 'node:crypto';
import type { JobExecutionStatusEntry, JobSpecificationDocument } from '@sas/contracts';
import type { Clock } from '@sas/runtime';
import type { JobListFilter, JobStore } from './job-store';
import { newJobDocument } from './new-job-document';
import { currentStatusEntry, statusEntry } from './status-entry';
import { validateJobSpecification } from './validate-job-specification';

/** Options of {@link JobSpecificationService}. */
export interface JobSpecificationServiceOptions {
  clock: Clock;
  /** How long a canceled job and its history stay before the TTL removes them. @default 7 days */
  retentionMs?: number;
  /** Makes job ids; tests pass a deterministic one. @default `job-<uuid>` */
  newId?: () => string;
}

/** Outcome of {@link JobSpecificationService.create}. */
export type CreateJobResult =
  | { ok: true; job: JobSpecificationDocument }
  | { ok: false; error: 'invalid' | 'exists'; message: string; issues: string[] };

/** Outcome of {@link JobSpecificationService.cancel}. */
export type CancelJobResult = { ok: true; job: JobSpecificationDocument } | { ok: false; error: 'not-found' | 'finished'; message: string };

/** A job with its status history, oldest first, and its current status entry. */
export interface JobWithHistory {
  job: JobSpecificationDocument;
  history: JobExecutionStatusEntry[];
  current: JobExecutionStatusEntry | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Managing job specifications: create, list, show, cancel. It is the one place a specification
 * is validated and a job is created or canceled, so the CLI and the dashboard behave alike.
 * Expected refusals (invalid, key taken, not cancelable) are values whose `message` says what to do.
 *
 * @example
 * ```ts
 * const jobs = new JobSpecificationService(new MongoJobStore(db), { clock: systemClock });
 * const created = await jobs.create(JSON.parse(text), 'ops');
 * if (!created.ok) throw new Error(created.message);
 * ```
 */
export class JobSpecificationService {
  private readonly retentionMs: number;
  private readonly newId: () => string;

  constructor(
    private readonly store: JobStore,
    private readonly options: JobSpecificationServiceOptions,
  ) {
    this.retentionMs = options.retentionMs ?? 7 * DAY_MS;
    this.newId = options.newId ?? (() => `job-${randomUUID()}`);
  }

  /** Validates and stores a new SCHEDULED job with its first status entry. */
  async create(input: unknown, by: string): Promise<CreateJobResult> {
    const validated = validateJobSpecification(input);
    if (!validated.ok) {
      return { ok: false, error: 'invalid', message: `Job specification is not valid: ${validated.issues.join('; ')}`, issues: validated.issues };
    }
    const now = new Date(this.options.clock.now());
    const built = newJobDocument(validated.spec, this.newId(), now);
    if (!built.ok) return { ok: false, error: 'invalid', message: `Job specification is not valid: ${built.reason}`, issues: [built.reason] };
    const job = built.doc;
    const first = statusEntry({ job, status: 'SCHEDULED', at: now, revision: 0, by, deleteTime: null, nextFireTime: job.nextFireTime });
    const inserted = await this.store.insert(job, first);
    if (!inserted.ok) {
      const existing = await this.store.getByKey(job.jobSpecificationKey);
      const state = existing
        ? existing.deleteTime
          ? ` (${existing.status}; removed after ${existing.deleteTime.toISOString()})`
          : ` (${existing.status})`
        : '';
      return {
        ok: false,
        error: 'exists',
        message: `A job with key '${job.jobSpecificationKey}' already exists${state}; choose another key, or cancel it first and wait for its removal`,
        issues: [],
      };
    }
    return { ok: true, job };
  }

  /** Unfinished jobs by key (finished ones too when asked), optionally of one requestor. */
  list(filter: JobListFilter = {}): Promise<JobSpecificationDocument[]> {
    return this.store.list(filter);
  }

  /** The job with this key and its status history; null when there is none (or the TTL removed it). */
  async show(key: string): Promise<JobWithHistory | null> {
    const job = await this.store.getByKey(key);
    if (!job) return null;
    const history = await this.store.statusHistory(job._id);
    return { job, history, current: currentStatusEntry(history) };
  }

  /** Cancels a SCHEDULED job: it never fires again, and it and its history get a deleteTime. */
  async cancel(key: string, by: string): Promise<CancelJobResult> {
    const now = new Date(this.options.clock.now());
    const deleteTime = new Date(now.getTime() + this.retentionMs);
    const job = await this.store.cancel(key, deleteTime, now);
    if (!job) {
      const existing = await this.store.getByKey(key);
      if (!existing) return { ok: false, error: 'not-found', message: `No job with key '${key}'; list them with 'sas jobs list'` };
      return { ok: false, error: 'finished', message: `Job '${key}' is ${existing.status}; only SCHEDULED jobs can be canceled` };
    }
    const entry = statusEntry({ job, status: 'CANCELED', at: now, revision: job.revision, by, deleteTime, reason: `canceled by ${by}` });
    await this.store.appendStatuses([entry]);
    await this.store.expireStatuses(job._id, [], deleteTime);
    return { ok: true, job };
  }
}
