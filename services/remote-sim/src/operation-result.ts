import type { Effect } from './effect-ledger';
import { isCompensation, type RemoteServiceName } from './remote-operations';

/** What an operation needs to produce its result. */
export interface OperationContext {
  service: RemoteServiceName;
  operation: string;
  payload: Readonly<Record<string, unknown>>;
  /** Zero-padded, unique per simulator; makes ids readable and reproducible across runs. */
  serial: string;
  /** For a compensation: the forward effect it undoes, when there is one. */
  original: Effect | undefined;
}

/**
 * A plausible result per operation, so agents and the dashboard have something real-looking to
 * store. Compensations name the effect they undo (`originalEffectId`), or null when the forward
 * operation never took effect — undoing nothing still succeeds, as a saga needs it to, and says
 * so with `noop: true` (absent when something was undone, so existing result shapes stay as they were).
 */
export function operationResult(ctx: OperationContext): Record<string, unknown> {
  const result = resultOf(ctx);
  return isCompensation(ctx.service, ctx.operation) && ctx.original === undefined ? { ...result, noop: true } : result;
}

function resultOf(ctx: OperationContext): Record<string, unknown> {
  const originalEffectId = ctx.original?.effectId ?? null;
  const from = ctx.original?.result ?? {};
  switch (ctx.operation) {
    case 'charge':
      return { chargeId: `ch-${ctx.serial}`, amount: amountOf(ctx.payload) };
    case 'refund':
      return {
        refundId: `re-${ctx.serial}`,
        chargeId: stringOrNull(from['chargeId']),
        amount: ctx.original ? amountOf(from) : 0,
        originalEffectId,
      };
    case 'reserve':
      return { reservationId: `rsv-${ctx.serial}` };
    case 'release':
      return { releaseId: `rel-${ctx.serial}`, reservationId: stringOrNull(from['reservationId']), originalEffectId };
    case 'create':
      return { trackingNumber: `TRK${ctx.serial}` };
    case 'book':
      return { bookingId: `bk-${ctx.serial}` };
    case 'cancel':
      if (ctx.service !== 'shipping') return { cancellationId: `cx-${ctx.serial}`, bookingId: stringOrNull(from['bookingId']), originalEffectId };
      return {
        cancellationId: `cx-${ctx.serial}`,
        trackingNumber: stringOrNull(from['trackingNumber']),
        originalEffectId,
      };
    default:
      // Only reachable if the operation table grows without this switch: fail at the first call.
      throw new Error(`No result defined for ${ctx.service}.${ctx.operation}; add it to operationResult`);
  }
}

function amountOf(source: Readonly<Record<string, unknown>>): number {
  const amount = source['amount'];
  return typeof amount === 'number' && Number.isFinite(amount) ? amount : 0;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
