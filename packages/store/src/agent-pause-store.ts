import type { AgentPauseDocument } from '@sas/contracts';
import type { CommitResult } from './commit-result';

/**
 * Where operators' pauses of agents are kept (one document per agent ever paused). Writes are
 * conditional on the document's revision, so two operators acting at once never lose a change.
 * Implemented by {@link MongoAgentPauseStore}; tests and the simulation use {@link InMemoryAgentPauseStore}.
 */
export interface AgentPauseStore {
  /** Every agent ever paused (paused or resumed), by name. */
  list(): Promise<AgentPauseDocument[]>;
  get(agent: string): Promise<AgentPauseDocument | null>;
  /**
   * Writes `next` if the stored revision is still `expectedRevision`, or inserts it when
   * `expectedRevision` is null and the agent has no document yet; `conflict` otherwise.
   */
  write(next: AgentPauseDocument, expectedRevision: number | null): Promise<CommitResult>;
}
