import type { JsonObject, ProcessDocument } from '@sas/contracts';
import type { Violation } from './invariants';
import type { CommitRecord } from './sim-system';
import { TRIP_COOLING_OFF_MS, TRIP_WORKFLOWS } from './trip-workflows';

/** The wait steps of the trip workflows: `ms` after the step came up, or `until` the payload's instant. */
const WAITS: Record<string, { step: string; ms?: number; untilField?: string }> = {
  [TRIP_WORKFLOWS.strict]: { step: 'cooling-off', ms: TRIP_COOLING_OFF_MS },
  [TRIP_WORKFLOWS.lenient]: { step: 'hold-fare', untilField: 'holdUntil' },
};

/**
 * A wait step never completes before its instant: the first write that has it Completed comes no
 * earlier than the first write that has it come up (any state but NotStarted and Skipped) plus its
 * `ms`, or than the payload's `until`. Read from the commits as they won, at the virtual time they
 * won, not from the `waitUntil` the code under test computed.
 */
export function checkWaits(doc: ProcessDocument, payload: JsonObject, commits: readonly CommitRecord[], violations: Violation[]): void {
  const wait = WAITS[doc.workflow];
  if (!wait) return;
  let cameUp: number | undefined;
  let completed: number | undefined;
  for (const c of commits) {
    if (c.processId !== doc._id) continue;
    const step = c.steps.find((s) => s.name === wait.step);
    if (!step || step.state === 'NotStarted' || step.state === 'Skipped') continue;
    cameUp ??= c.at;
    if (step.state === 'Completed') {
      completed = c.at;
      break;
    }
  }
  if (cameUp === undefined || completed === undefined) return;
  const instant = wait.ms !== undefined ? cameUp + wait.ms : Date.parse(String(payload[wait.untilField ?? '']));
  if (completed < instant) {
    violations.push({ invariant: 'a wait never ends before its instant', orderId: doc.orderId, detail: `${wait.step} completed at +${completed - cameUp} ms after it came up, ${instant - completed} ms before its instant (${new Date(instant).toISOString()})` });
  }
}
