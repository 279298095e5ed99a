import type { BreakerStateDocument, ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import type { ProcessListQuery } from '../process-list-query';
import type { ProcessCount, ProcessReadModel } from '../process-read-model';

/**
 * {@link ProcessReadModel} over arrays, for tests of the HTTP layer: same ordering and filters as
 * the MongoDB one, plus a switch to make every read fail as an unreachable store would.
 */
export class FakeReadModel implements ProcessReadModel {
  processes: ProcessDocument[] = [];
  events: ProcessEventEntry[] = [];
  breakerStates: BreakerStateDocument[] = [];
  /** When set, every call rejects with this error. */
  failure: Error | undefined;
  /** Queries received by `list`, for assertions on parsing. */
  readonly listQueries: ProcessListQuery[] = [];

  async list(query: ProcessListQuery): Promise<ProcessDocument[]> {
    this.check();
    this.listQueries.push(query);
    return this.processes
      .filter((p) => (!query.state || p.state === query.state) && (!query.workflow || p.workflow === query.workflow))
      .filter((p) => (!query.orderId || p.orderId === query.orderId) && (!query.before || isAfter(p, query.before)))
      .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || b._id.localeCompare(a._id))
      .slice(0, query.limit);
  }

  async find(idOrOrderId: string): Promise<ProcessDocument | null> {
    this.check();
    return this.processes.find((p) => p._id === idOrOrderId) ?? this.processes.find((p) => p.orderId === idOrOrderId) ?? null;
  }

  async history(processId: string): Promise<ProcessEventEntry[]> {
    this.check();
    return this.events.filter((e) => e.processId === processId);
  }

  async countBy(field: 'state' | 'workflow'): Promise<Record<string, number>> {
    this.check();
    const counts: Record<string, number> = {};
    for (const p of this.processes) counts[p[field]] = (counts[p[field]] ?? 0) + 1;
    return counts;
  }

  async countByWorkflowAndState(): Promise<ProcessCount[]> {
    this.check();
    const counts = new Map<string, ProcessCount>();
    for (const p of this.processes) {
      const key = `${p.workflow}\u0000${p.state}`;
      const c = counts.get(key) ?? { workflow: p.workflow, state: p.state, count: 0 };
      c.count += 1;
      counts.set(key, c);
    }
    return [...counts.values()];
  }

  async breakers(): Promise<BreakerStateDocument[]> {
    this.check();
    return this.breakerStates;
  }

  async ping(): Promise<void> {
    this.check();
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }
}

/** Whether a process sorts after the cursor (updatedAt, then _id, both descending), as in MongoDB. */
function isAfter(p: ProcessDocument, before: { at: Date; id?: string }): boolean {
  const t = p.updatedAt.getTime();
  if (t !== before.at.getTime()) return t < before.at.getTime();
  return before.id !== undefined && p._id < before.id;
}
