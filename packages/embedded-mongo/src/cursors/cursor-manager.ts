import { calculateObjectSize } from 'bson';
import type { Doc } from '../bson/bson-types';
import { CommandError } from '../errors/command-error';

/** The most a batch may hold, as in MongoDB (one BSON object's limit). */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
/** The first batch's default size in MongoDB. */
const DEFAULT_FIRST_BATCH = 101;

interface CursorState {
  readonly ns: string;
  readonly docs: readonly Doc[];
  position: number;
  lastUsed: number;
}

/** One batch of a cursor: the documents and the id to continue with (0 when exhausted). */
export interface Batch {
  readonly docs: Doc[];
  readonly id: number;
}

/**
 * Holds open cursors between `find`/`aggregate` and `getMore`/`killCursors`. Results are
 * computed when the cursor opens (each command applies atomically), then handed out in
 * batches bounded by count and by MongoDB's 16 MB batch size. Idle cursors are removed after
 * `idleTimeoutMs`, like MongoDB's 10-minute cursor timeout.
 */
export class CursorManager {
  private readonly cursors = new Map<number, CursorState>();
  private nextId = 1 + Math.floor(Math.random() * 1e9);

  constructor(
    private readonly now: () => number,
    private readonly idleTimeoutMs = 10 * 60 * 1000,
  ) {}

  private take(state: CursorState, maxCount: number): Doc[] {
    const batch: Doc[] = [];
    let bytes = 0;
    while (state.position < state.docs.length && batch.length < maxCount) {
      const doc = state.docs[state.position] as Doc;
      bytes += calculateObjectSize(doc);
      if (batch.length > 0 && bytes > MAX_BATCH_BYTES) break;
      batch.push(doc);
      state.position++;
    }
    return batch;
  }

  /** Opens a cursor over `docs` and returns its first batch; a single-batch cursor is closed at once. */
  open(ns: string, docs: readonly Doc[], batchSize: number | undefined, singleBatch = false): Batch {
    this.reapIdle();
    const state: CursorState = { ns, docs, position: 0, lastUsed: this.now() };
    const first = this.take(state, batchSize ?? DEFAULT_FIRST_BATCH);
    if (singleBatch || state.position >= docs.length) return { docs: first, id: 0 };
    const id = this.nextId++;
    this.cursors.set(id, state);
    return { docs: first, id };
  }

  /** The next batch of an open cursor; CursorNotFound (43) when it was exhausted, killed or timed out. */
  getMore(id: number, ns: string, batchSize: number | undefined): Batch {
    this.reapIdle();
    const state = this.cursors.get(id);
    if (state === undefined) throw new CommandError('CursorNotFound', `cursor id ${id} not found`);
    if (state.ns !== ns) {
      throw new CommandError(
        'Unauthorized',
        `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${state.ns}`,
      );
    }
    state.lastUsed = this.now();
    const docs = this.take(state, batchSize ?? Number.POSITIVE_INFINITY);
    if (state.position >= state.docs.length) {
      this.cursors.delete(id);
      return { docs, id: 0 };
    }
    return { docs, id };
  }

  /** Closes cursors; returns which ids were open and which were not. */
  kill(ids: readonly number[]): { killed: number[]; notFound: number[] } {
    const killed: number[] = [];
    const notFound: number[] = [];
    for (const id of ids) (this.cursors.delete(id) ? killed : notFound).push(id);
    return { killed, notFound };
  }

  /** Drops cursors idle longer than the timeout. */
  reapIdle(): void {
    const limit = this.now() - this.idleTimeoutMs;
    for (const [id, state] of this.cursors) if (state.lastUsed < limit) this.cursors.delete(id);
  }

  /** Number of open cursors (for tests and logs). */
  get openCount(): number {
    return this.cursors.size;
  }
}
