import type { StatusEvent, StatusKind } from '@sas/contracts';

/** `SasClient.waitFor` gave up: none of the awaited statuses arrived for the order in time. */
export class StatusTimeoutError extends Error {
  override readonly name = 'StatusTimeoutError';
  constructor(
    readonly orderId: string,
    readonly until: readonly StatusKind[],
    /** Every status event of the order seen so far, in arrival order. */
    readonly seen: readonly StatusEvent[],
    readonly timeoutMs: number,
    /** Where the client listened, for the hint. */
    where: { replyTo: string; prefix: string },
  ) {
    const awaited = until.join(' or ');
    const hint =
      seen.length === 0
        ? `nothing arrived for it on '${where.replyTo}' (prefix '${where.prefix}'): check that the order was submitted with replyTo '${where.replyTo}' and that a submission service runs on the same Redis and QUEUE_PREFIX`
        : `seen: ${seen.map(describe).join(', ')}; the order is still under way or waits for an operator (after Failed, see 'sas status ${orderId}'): wait longer or look at it`;
    super(`No ${awaited} status for order '${orderId}' within ${timeoutMs} ms; ${hint}.`);
  }
}

function describe(event: StatusEvent): string {
  return event.step ? `${event.status} (${event.step})` : event.status;
}
