import type { ProcessDocument, ProcessEventEntry } from '@sas/contracts';
import type { Action } from './action';

/** A transition either changes the process (commit `next`, then perform `actions`) or changes nothing. */
export type TransitionResult =
  | { applied: true; next: ProcessDocument; actions: Action[]; history: ProcessEventEntry }
  | {
      applied: false;
      reason: string;
      /** Set when the input is an operator command this process already applied: what it did then. */
      alreadyApplied?: string;
    };
