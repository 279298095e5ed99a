import type { ProcessDocument } from '@sas/contracts';

/** What applying one input to one process came to. Expected outcomes are values, not exceptions. */
export type ApplyOutcome =
  | { kind: 'applied'; process: ProcessDocument; why: string }
  | { kind: 'ignored'; reason: string }
  | { kind: 'not-found' }
  /** Another writer kept winning; the input was not applied (the caller may retry later). */
  | { kind: 'contended' };
