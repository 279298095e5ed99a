/**
 * What the simulator decided to answer, as a value: the HTTP layer only carries it out. Keeping the
 * decision pure lets the unit tests check every fault without sockets or timers.
 */
export type SimResponse =
  | {
      kind: 'answer';
      status: number;
      headers: Record<string, string>;
      body: unknown;
      /** Wait this long before answering (injected latency). */
      delayMs: number;
      /** The call's entry in the arrival log, so the server can note when it was answered. */
      arrivalId?: string;
      /** Hold the answer (its effect already applied) until this service's answers are released. */
      heldFor?: string;
    }
  | {
      /** Never answer; hold the request until the client gives up or the server closes. */
      kind: 'hang';
      arrivalId?: string;
    };

/** A JSON answer. */
export function answer(status: number, body: unknown, headers: Record<string, string> = {}, delayMs = 0): SimResponse {
  return { kind: 'answer', status, headers, body, delayMs };
}

/** An error answer; every error body of this service is `{ error }` saying what went wrong and what to do. */
export function errorAnswer(status: number, error: string, headers: Record<string, string> = {}, delayMs = 0): SimResponse {
  return answer(status, { error }, headers, delayMs);
}
