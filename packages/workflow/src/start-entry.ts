import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';

/**
 * Begins the entry whose first record is at `index` and finishes the draft: `startStage`, handed
 * as a parameter to the entries that start the next one when they complete (a group, a wait, a
 * signal step). Entries and the start of an entry call each other (any kind may follow any kind);
 * passing the continuation keeps that recursion out of the import graph, so no module cycle.
 */
export type StartEntry = (draft: ProcessDraft, index: number, why: string) => TransitionResult;
