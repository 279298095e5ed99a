import type { JsonObject, ProcessDocument } from '@sas/contracts';
import type { Violation } from './invariants';
import type { LedgerEntry } from './sim-remote';
import { TRIP_INSURE_ABOVE, TRIP_WORKFLOWS, isTripWorkflow } from './trip-workflows';

/**
 * The steps of a trip whose condition is false, worked out here from the payload and the results
 * rather than by the code under test (which evaluates the CEL): a day trip books no hotel and no
 * flight in the group; another trip no day flight; an express confirmation skips the cooling-off; a
 * lenient trip whose flight and hotel cost at most {@link TRIP_INSURE_ABOVE} is not insured (the
 * remotes answer the payload's prices). `null` for a step whose condition cannot be told yet.
 */
function skippedByCondition(workflow: string, payload: JsonObject, doc: ProcessDocument): Map<string, boolean | null> {
  const skipped = new Map<string, boolean | null>();
  if (workflow === TRIP_WORKFLOWS.lenient) {
    skipped.set('insure-trip', Number(payload['flightPrice']) + Number(payload['hotelPrice']) <= TRIP_INSURE_ABOVE);
    return skipped;
  }
  const dayTrip = payload['dayTrip'] === true;
  skipped.set('book-flight', dayTrip);
  skipped.set('book-hotel', dayTrip);
  skipped.set('book-day-flight', !dayTrip);
  if (workflow === TRIP_WORKFLOWS.strict) {
    const confirm = doc.steps.find((s) => s.name === 'confirm');
    skipped.set('cooling-off', confirm?.state === 'Completed' && confirm.result ? confirm.result['express'] === true : null);
  }
  return skipped;
}

/**
 * A step whose condition is false is never called (the remotes' ledger holds no call of it, in
 * either direction) and, once the process got past it, is Skipped; a step whose condition is true
 * is not skipped. Read from the ledger and the scenario's payload.
 */
export function checkConditions(doc: ProcessDocument, payload: JsonObject, ledger: readonly LedgerEntry[], violations: Violation[]): void {
  if (!isTripWorkflow(doc.workflow)) return;
  const { orderId } = doc;
  const expected = skippedByCondition(doc.workflow, payload, doc);
  for (const step of doc.steps) {
    const skip = expected.get(step.name) ?? null;
    const calls = ledger.filter((e) => e.orderId === orderId && e.step === step.name);
    if ((skip === true || step.state === 'Skipped') && calls.length > 0) {
      violations.push({ invariant: 'a skipped step is never called', orderId, detail: `${step.name} (${step.state}, condition ${skip === true ? 'false' : 'true'}) was called: ${calls.map((e) => `${e.service}.${e.operation} #${e.seq}`).join(', ')}` });
    }
    if (skip === true && step.state !== 'Skipped' && step.state !== 'NotStarted') {
      violations.push({ invariant: 'a false condition skips its step', orderId, detail: `${step.name} is ${step.state} although its condition is false (payload ${JSON.stringify(payload)})` });
    }
    if (skip === false && step.state === 'Skipped') {
      violations.push({ invariant: 'a true condition runs its step', orderId, detail: `${step.name} was skipped although its condition is true (payload ${JSON.stringify(payload)})` });
    }
    if (skip === true && doc.state === 'Processed' && step.state !== 'Skipped') {
      violations.push({ invariant: 'a false condition skips its step', orderId, detail: `${step.name} ended ${step.state} in a Processed order although its condition is false` });
    }
  }
}
