import { randomUUID } from 'node:crypto';
import { SCHEMA_VERSION, type BulkOperationDocument, type BulkOperationRequest } from '@sas/contracts';
import type { Clock } from '@sas/runtime';
import { countMatches, type BulkCandidates } from './bulk-candidates';
import type { BulkOperationStore } from './bulk-operation-store';
import { emptyProgress } from './bulk-progress';

/** What creating an operation came to. Expected outcomes are values. */
export type BulkCreateOutcome =
  | { kind: 'created'; operation: BulkOperationDocument }
  /** The id was given before with the same request: this is the operation it created. */
  | { kind: 'existing'; operation: BulkOperationDocument }
  /** The id is taken by a different request. */
  | { kind: 'conflict'; operation: BulkOperationDocument; message: string }
  | { kind: 'dry-run'; matched: number };

/**
 * Creates and reads bulk operations, for the dashboard and the CLI. It only writes the operation:
 * a scheduler's {@link BulkRunner} picks it up and acts on the processes.
 *
 * @example
 * ```ts
 * const service = new BulkOperationService(new MongoBulkOperationStore(db), new MongoBulkCandidates(db), systemClock);
 * const outcome = await service.create({ command: 'resubmit', filter: BulkFilter.parse({ state: 'Error' }), reason: 'remote fixed' }, 'alice');
 * ```
 */
export class BulkOperationService {
  constructor(
    private readonly store: BulkOperationStore,
    private readonly candidates: BulkCandidates,
    private readonly clock: Clock,
    private readonly newId: () => string = () => `bulk-${randomUUID()}`,
  ) {}

  async create(request: BulkOperationRequest, by: string): Promise<BulkCreateOutcome> {
    const now = new Date(this.clock.now());
    if (request.dryRun) return { kind: 'dry-run', matched: await countMatches(this.candidates, request.filter, now) };
    if (request.id !== undefined) {
      const prior = await this.store.get(request.id);
      if (prior) return this.repeat(prior, request);
    }
    const operation: BulkOperationDocument = {
      _id: request.id ?? this.newId(),
      schemaVersion: SCHEMA_VERSION,
      command: request.command,
      filter: request.filter,
      reason: request.reason,
      by,
      state: 'Running',
      createdAt: now,
      updatedAt: now,
      finishedAt: null,
      expected: await countMatches(this.candidates, request.filter, now),
      cursor: null,
      page: null,
      revision: 0,
      progress: emptyProgress(),
      problems: [],
      runner: null,
      deleteTime: null,
    };
    if ((await this.store.insert(operation)) === 'inserted') return { kind: 'created', operation };
    // Two creations with the same id raced: the other one's is the operation.
    const winner = await this.store.get(operation._id);
    if (!winner) throw new Error(`bulk operation ${operation._id} was reported taken but cannot be read; try again`);
    return this.repeat(winner, request);
  }

  get(id: string): Promise<BulkOperationDocument | null> {
    return this.store.get(id);
  }

  list(limit: number): Promise<BulkOperationDocument[]> {
    return this.store.list(limit);
  }

  private repeat(prior: BulkOperationDocument, request: BulkOperationRequest): BulkCreateOutcome {
    const same = prior.command === request.command && prior.reason === request.reason && sameFilter(prior, request);
    if (same) return { kind: 'existing', operation: prior };
    return {
      kind: 'conflict',
      operation: prior,
      message: `bulk operation ${prior._id} exists with a different command, filter or reason; choose another id, or leave id out to get a new one`,
    };
  }
}

/** Both filters come out of the `BulkFilter` schema (the stored one is parsed as it is read), so their JSON is in one key order. */
function sameFilter(prior: BulkOperationDocument, request: BulkOperationRequest): boolean {
  return JSON.stringify(prior.filter) === JSON.stringify(request.filter);
}
