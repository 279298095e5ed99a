import type { JsonObject, SignalResult } from '@sas/contracts';

/** Outcome of sending a signal: no answer in time is expected (no scheduler running), not an error. */
export type SignalSendOutcome = { answered: true; result: SignalResult } | { answered: false; waitedMs: number };

/** What `POST /api/processes/:id/signal` sends: the signal for one process, named by its id. */
export interface SignalRequest {
  processId: string;
  name: string;
  data: JsonObject | null;
  /** Who sends it (the signed-in principal), for the process history. */
  by: string;
  /** @default derived from the process id, name and data (`defaultSignalId`), so a retried request counts once */
  signalId?: string;
}

/**
 * Sends a signal to the schedulers and waits for their answer. An interface so the HTTP layer can
 * be tested without schedulers; {@link SchedulerSignalSender} is the real one.
 */
export interface SignalSender {
  send(request: SignalRequest): Promise<SignalSendOutcome>;
}
