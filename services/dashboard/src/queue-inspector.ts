import type { JobType, Queue } from 'bullmq';

/** Jobs of one queue by state, as the summary shows them. */
export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** One job as the API lists it: its id (to find it in bull-board), when it was queued, its data. */
export interface QueuedEntry {
  id: string;
  queuedAt: string;
  data: unknown;
}

/** The states of a queue's backlog and work under way, as `/metrics` exposes them for autoscaling. */
export const DEPTH_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;

/** Jobs of one queue in one {@link DEPTH_STATES} state. */
export interface QueueDepth {
  queue: string;
  state: (typeof DEPTH_STATES)[number];
  count: number;
}

/** Every state a job can be in; reading them all finds an entry wherever it is. */
const ALL_STATES: JobType[] = ['waiting', 'prioritized', 'paused', 'delayed', 'active', 'completed', 'failed'];

/**
 * Reads the system's queues for the dashboard without consuming anything: counts per state and
 * the newest jobs of a queue (dead letters). Looking must never take a job away from whoever
 * handles it. (Alerts are consumed, by `AlertInbox`, and listed from MongoDB.)
 */
export class QueueInspector {
  private readonly byName: Map<string, Queue>;

  constructor(queues: readonly Queue[]) {
    this.byName = new Map(queues.map((q) => [q.name, q]));
  }

  /** Names of the inspected queues, in the order given. */
  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** Waiting, active, delayed and failed jobs of every queue. */
  async counts(): Promise<Record<string, QueueCounts>> {
    const entries = await Promise.all(
      [...this.byName.values()].map(async (q) => {
        const c = await q.getJobCounts('waiting', 'active', 'delayed', 'failed');
        return [q.name, { waiting: c['waiting'] ?? 0, active: c['active'] ?? 0, delayed: c['delayed'] ?? 0, failed: c['failed'] ?? 0 }] as const;
      }),
    );
    return Object.fromEntries(entries);
  }

  /** Jobs of every queue in each {@link DEPTH_STATES} state: one `getJobCounts` per queue. */
  async depths(): Promise<QueueDepth[]> {
    const perQueue = await Promise.all(
      [...this.byName.values()].map(async (q) => {
        const c = await q.getJobCounts(...DEPTH_STATES);
        return DEPTH_STATES.map((state) => ({ queue: q.name, state, count: c[state] ?? 0 }));
      }),
    );
    return perQueue.flat();
  }

  /** Jobs of a queue in any state: dead letters are never consumed, so this is how many there are. */
  async total(name: string): Promise<number> {
    const counts = await this.queue(name).getJobCounts(...ALL_STATES);
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  /** The `limit` most recently queued jobs of a queue, newest first, whatever their state. */
  async newest(name: string, limit: number): Promise<QueuedEntry[]> {
    // getJobs takes the range per state, so each state gives at most `limit`; merge, then cut.
    const jobs = await this.queue(name).getJobs(ALL_STATES, 0, limit - 1, false);
    return jobs
      .filter((job) => job !== undefined && job !== null)
      .sort((a, b) => b.timestamp - a.timestamp)
      .slice(0, limit)
      .map((job) => ({ id: String(job.id), queuedAt: new Date(job.timestamp).toISOString(), data: job.data as unknown }));
  }

  private queue(name: string): Queue {
    const q = this.byName.get(name);
    if (!q) throw new Error(`Queue '${name}' is not among the dashboard's queues (${this.names.join(', ')}); this is a bug in the dashboard's wiring`);
    return q;
  }
}
