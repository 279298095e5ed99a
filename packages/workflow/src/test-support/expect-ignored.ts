import type { ProcessInput } from '../process-input';
import type { ProcessRun } from './process-run';

/**
 * Asserts that `input` is refused with exactly `reason` and that the run's process is exactly as
 * before: a refused input must never leave a partial change behind.
 */
export function expectIgnored(run: ProcessRun, input: ProcessInput, reason: string): void {
  const before = structuredClone(run.doc);
  expect(run.try(input)).toEqual({ applied: false, reason });
  expect(run.doc).toEqual(before);
}
