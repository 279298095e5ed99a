import type { ProcessDocument } from '@sas/contracts';
import { isTripWorkflow } from './trip-workflows';

/** What a seed's trips came to: evidence that a run exercised the constructs it claims to. */
export interface TripTally {
  trips: number;
  processed: number;
  undone: number;
  /** Group members that completed, and steps skipped by a false condition. */
  membersCompleted: number;
  skipped: number;
  /** Wait steps that fired; signal steps completed by a signal, and by a `continue` timeout. */
  waitsFired: number;
  signalsTaken: number;
  signalTimeouts: number;
}

export function emptyTally(): TripTally {
  return { trips: 0, processed: 0, undone: 0, membersCompleted: 0, skipped: 0, waitsFired: 0, signalsTaken: 0, signalTimeouts: 0 };
}

/** Adds the trips among `docs` to `tally`. */
export function tallyTrips(docs: readonly ProcessDocument[], tally: TripTally = emptyTally()): TripTally {
  for (const doc of docs) {
    if (!isTripWorkflow(doc.workflow)) continue;
    tally.trips += 1;
    if (doc.state === 'Processed') tally.processed += 1;
    if (doc.state === 'Compensated' || doc.state === 'Canceled') tally.undone += 1;
    for (const s of doc.steps) {
      if (s.state === 'Skipped') tally.skipped += 1;
      if (s.state !== 'Completed' && s.state !== 'Compensated' && s.state !== 'Compensating') continue;
      if (s.group !== undefined) tally.membersCompleted += 1;
      if (s.kind === 'wait' && s.state === 'Completed') tally.waitsFired += 1;
      if (s.kind === 'signal' && s.state === 'Completed') {
        if (s.result?.['timedOut'] === true) tally.signalTimeouts += 1;
        else tally.signalsTaken += 1;
      }
    }
  }
  return tally;
}

/** `into` plus `more`, field by field. */
export function addTally(into: TripTally, more: TripTally): TripTally {
  for (const key of Object.keys(into) as (keyof TripTally)[]) into[key] += more[key];
  return into;
}
