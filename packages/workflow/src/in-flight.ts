import type { ProcessDraft } from './process-draft';

/**
 * Records that the held forward attempt's request may still reach the remote until its complete-by,
 * although the process is being released from it. That is so when its dispatch's send failed (it
 * may have left all the same), and when its agent answered without an outcome (`parked`, or gave up
 * on transient errors): an agent whose reply's send failed is handed the request again and calls
 * the remote again, until complete-by. No undo is dispatched before that time (see
 * `continueCompensation`), since an undo that overtook the forward call would leave its effect at a
 * remote that ignores `compensates`. Only a forward call can be overtaken: a lost undo is sent again
 * under the same key.
 */
export function keepInFlight(draft: ProcessDraft): void {
  const { doc } = draft;
  if (doc.mode !== 'forward' || !doc.completeBy) return;
  if (doc.completeBy.getTime() > (doc.inFlightUntil?.getTime() ?? 0)) doc.inFlightUntil = new Date(doc.completeBy);
}
