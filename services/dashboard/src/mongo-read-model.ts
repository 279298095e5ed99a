import type { Collection, Db } from 'mongodb';
import type { BreakerStateDocument, ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import { BreakerRepository, CollectionNames, MongoProcessStore } from '@sas/store';
import { processListFilter, type ProcessListQuery } from './process-list-query';
import type { ProcessCount, ProcessReadModel } from './process-read-model';

/** Key under which {@link ProcessReadModel.countBy} counts documents that lack the field. */
export const NO_VALUE = '(none)';

/**
 * {@link ProcessReadModel} on MongoDB. Reads by id and history go through the store's own
 * repositories, so the dashboard sees exactly what the services wrote; listing and counting
 * are queries only the dashboard needs.
 */
export class MongoReadModel implements ProcessReadModel {
  private readonly store: MongoProcessStore;
  private readonly breakerRepository: BreakerRepository;
  private readonly processes: Collection<ProcessDocument>;

  constructor(private readonly db: Db) {
    this.store = new MongoProcessStore(db);
    this.breakerRepository = new BreakerRepository(db);
    this.processes = db.collection<ProcessDocument>(CollectionNames.processes);
  }

  list(query: ProcessListQuery): Promise<ProcessDocument[]> {
    // _id breaks ties between processes updated in the same millisecond, so pages are stable.
    return this.processes.find(processListFilter(query)).sort({ updatedAt: -1, _id: -1 }).limit(query.limit).toArray();
  }

  async find(idOrOrderId: string): Promise<ProcessDocument | null> {
    return (await this.store.get(idOrOrderId)) ?? this.store.getByOrderId(idOrOrderId);
  }

  history(processId: string): Promise<ProcessEventEntry[]> {
    return this.store.history(processId);
  }

  async countBy(field: 'state' | 'workflow'): Promise<Record<string, number>> {
    const groups = await this.processes.aggregate<{ _id: unknown; n: number }>([{ $group: { _id: `$${field}`, n: { $sum: 1 } } }]).toArray();
    const counts: Record<string, number> = {};
    for (const g of groups) {
      const key = typeof g._id === 'string' ? g._id : NO_VALUE;
      counts[key] = (counts[key] ?? 0) + g.n;
    }
    return counts;
  }

  /**
   * One `$group` by state per workflow rather than one by `{ workflow, state }`: the embedded store
   * groups by a single field only, and workflows are few, so this stays a handful of count queries.
   */
  async countByWorkflowAndState(): Promise<ProcessCount[]> {
    const workflows = Object.keys(await this.countBy('workflow'));
    const perWorkflow = await Promise.all(
      workflows.map(async (workflow) => {
        const match = workflow === NO_VALUE ? { workflow: { $exists: false } } : { workflow };
        const states = await this.processes
          .aggregate<{ _id: unknown; n: number }>([{ $match: match }, { $group: { _id: '$state', n: { $sum: 1 } } }])
          .toArray();
        return states.map((g) => ({ workflow, state: typeof g._id === 'string' ? g._id : NO_VALUE, count: g.n }));
      }),
    );
    return perWorkflow.flat();
  }

  breakers(): Promise<BreakerStateDocument[]> {
    return this.breakerRepository.list();
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }
}
