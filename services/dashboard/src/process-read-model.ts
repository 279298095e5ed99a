import type { BreakerStateDocument, ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import type { ProcessListQuery } from './process-list-query';

/** Processes of one workflow in one state. */
export interface ProcessCount {
  workflow: string;
  state: string;
  count: number;
}

/**
 * What the dashboard reads from the state store. It is an interface so the HTTP layer can be
 * tested against a fake; {@link MongoReadModel} is the real one. The dashboard never writes process
 * state: every change goes through an operator command to a scheduler. (Its only writes are the
 * alerts it consumes, to its own `alerts` collection.)
 */
export interface ProcessReadModel {
  /** Processes matching the query, last updated first. */
  list(query: ProcessListQuery): Promise<ProcessDocument[]>;
  /** The process with this id, or else the one with this orderId. */
  find(idOrOrderId: string): Promise<ProcessDocument | null>;
  /** The process's transitions, oldest first. */
  history(processId: string): Promise<ProcessEventEntry[]>;
  /** How many processes have each value of the field (absent values count under `'(none)'`). */
  countBy(field: 'state' | 'workflow'): Promise<Record<string, number>>;
  /** How many processes each workflow has in each state, counted by the store (no documents read into memory). */
  countByWorkflowAndState(): Promise<ProcessCount[]>;
  /** Breaker states reported by agent instances. */
  breakers(): Promise<BreakerStateDocument[]>;
  /** Resolves when the store answers; rejects when it does not. */
  ping(): Promise<void>;
}
