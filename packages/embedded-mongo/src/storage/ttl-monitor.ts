import type { Catalog } from './catalog';
import { compileFilter } from '../query/query-matcher';

/**
 * Removes documents whose TTL-indexed field has expired, as MongoDB's TTL monitor does: a
 * document expires when its field is a Date (or an array holding Dates: the earliest counts)
 * older than now − `expireAfterSeconds`; any other value never expires. Runs every
 * `intervalMs` on an unref'd timer (MongoDB: every 60 s), so it never holds a process open.
 * Each timed sweep's removals are committed together (`commit`, the persisted mode's journal).
 */
export class TtlMonitor {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly catalog: Catalog,
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly onSweep: (removed: number, error?: unknown) => void = () => undefined,
    private readonly commit: () => void = () => undefined,
  ) {}

  /** Starts the periodic sweep; calling it twice is harmless. */
  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      let removed = 0;
      let failure: unknown;
      try {
        removed = this.sweep();
      } catch (error) {
        failure = error;
      }
      try {
        // Also after a failed sweep: what it removed before failing is gone from memory.
        this.commit();
      } catch (error) {
        failure ??= error;
      }
      if (failure === undefined) this.onSweep(removed);
      else this.onSweep(0, failure);
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the sweep. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One pass over every TTL index; returns how many documents it removed. */
  sweep(): number {
    const now = this.now();
    let removed = 0;
    for (const collection of this.catalog.all()) {
      for (const spec of collection.indexes.ttlIndexes()) {
        const field = spec.fields[0];
        if (field === undefined || spec.expireAfterSeconds === undefined) continue;
        // "Some Date in the field is before the cutoff" is "the earliest Date is", and as a query
        // it reads the TTL index's Date range instead of every document.
        const filter = { [field.path]: { $lt: new Date(now - spec.expireAfterSeconds * 1000) } };
        const expired = collection
          .select(filter, compileFilter(filter))
          .filter((doc) => collection.indexes.covers(spec, doc));
        for (const doc of expired) collection.remove(doc);
        removed += expired.length;
      }
    }
    return removed;
  }
}
