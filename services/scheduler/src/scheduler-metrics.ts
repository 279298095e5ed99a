import type { StepObservation } from './step-observation';

/**
 * Where the {@link Scheduler} reports what only it sees as it happens, for `/metrics`. An
 * interface so the scheduler stays free of any metrics library (a simulation passes none);
 * `PromSchedulerMetrics` implements it. Calls must not throw.
 */
export interface SchedulerMetrics {
  /** A reply was applied to its process. */
  stepReplied(observation: StepObservation): void;
}
