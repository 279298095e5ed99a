import type { RecoveryAction } from './recovery-action';

/**
 * Where the {@link Supervisor} reports each recovery as it happens, for `/metrics`. An interface so
 * the supervisor stays free of any metrics library (a simulation passes none);
 * `PromSupervisorMetrics` implements it. Calls must not throw.
 */
export interface SupervisorMetrics {
  /** An expired process of `workflow` was recovered, with this outcome. */
  recovered(workflow: string, action: RecoveryAction): void;
}
