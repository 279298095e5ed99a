import type { ProcessDocument } from '@sas/contracts';

/** What applying one input to one process came to. Expected outcomes are values, not exceptions. */
export type ApplyOutcome =
  | { kind: 'applied'; process: ProcessDocument; why: string }
  /** Nothing changed; `alreadyApplied` is set when the input is an operator command done before. */
  | { kind: 'ignored'; reason: string; alreadyApplied?: string }
  | { kind: 'not-found' }
  /** Another writer kept winning; the input was not applied (the caller may retry later). */
  | { kind: 'contended' }
  /**
   * This build cannot handle the process at all: its workflow version is not deployed
   * (`waitForDeploy`: may pass), or its document cannot be read or transitioned (final).
   */
  | { kind: 'unhandleable'; reason: string; waitForDeploy: boolean };
