import { clone, type AgentPauseDocument } from '@sas/contracts';
import type { AgentPauseStore } from './agent-pause-store';
import type { CommitResult } from './commit-result';

/**
 * {@link AgentPauseStore} in memory, with the same conditional writes; documents go in and out as
 * deep copies (`clone`: plain data and Dates, several times cheaper than `structuredClone`, and the
 * paused-agents cache reads this on every dispatch in the simulation).
 */
export class InMemoryAgentPauseStore implements AgentPauseStore {
  private readonly pauses = new Map<string, AgentPauseDocument>();

  async list(): Promise<AgentPauseDocument[]> {
    return [...this.pauses.values()].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)).map((d) => clone(d));
  }

  async get(agent: string): Promise<AgentPauseDocument | null> {
    const doc = this.pauses.get(agent);
    return doc ? clone(doc) : null;
  }

  async write(next: AgentPauseDocument, expectedRevision: number | null): Promise<CommitResult> {
    const stored = this.pauses.get(next._id);
    if (expectedRevision === null ? stored !== undefined : stored?.revision !== expectedRevision) return { ok: false, reason: 'conflict' };
    this.pauses.set(next._id, clone(next));
    return { ok: true };
  }
}
