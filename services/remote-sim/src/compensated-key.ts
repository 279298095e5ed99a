import { RemoteOperations, isCompensation, type RemoteServiceName } from './remote-operations';

/**
 * The header by which an undo names the forward call it compensates. A header rather than only a
 * payload field so that a real remote can tombstone the forward key without parsing the payload.
 */
export const compensatesIdempotencyKeyHeader = 'Compensates-Idempotency-Key';

/** Result of {@link compensatedKeyOf}: the named forward key (undefined when none), or why the call is refused. */
export type CompensatedKey = { ok: true; key: string | undefined } | { ok: false; error: string };

/**
 * The forward idempotency key an undo names: the `Compensates-Idempotency-Key` header when sent
 * (it wins), else the payload's `originalIdempotencyKey` string (the simulator's older convention).
 * A forward call sending the header is refused: it can only be a caller bug, and accepting it
 * silently would hide one.
 */
export function compensatedKeyOf(
  service: RemoteServiceName,
  operation: string,
  header: string | undefined,
  payload: Readonly<Record<string, unknown>>,
  maxLength: number,
): CompensatedKey {
  const compensation = isCompensation(service, operation);
  if (header !== undefined) {
    if (!compensation) {
      const undo = RemoteOperations[service].compensation;
      return {
        ok: false,
        error: `${compensatesIdempotencyKeyHeader} was sent on ${service}.${operation}, which is a forward operation; send it only on ${service}.${undo}`,
      };
    }
    return checked(compensatesIdempotencyKeyHeader, header, maxLength);
  }
  const named = payload['originalIdempotencyKey'];
  // Forward payloads are opaque; a non-string was never read as a key, so it stays ignored.
  if (!compensation || typeof named !== 'string') return { ok: true, key: undefined };
  return checked('payload.originalIdempotencyKey', named, maxLength);
}

function checked(source: string, key: string, maxLength: number): CompensatedKey {
  if (key.trim() === '') {
    return {
      ok: false,
      error: `${source} is empty; send the idempotency key of the forward call this undo compensates, or omit ${source === compensatesIdempotencyKeyHeader ? 'the header' : 'the field'}`,
    };
  }
  if (key.length > maxLength)
    return { ok: false, error: `${source} is ${key.length} characters; use at most ${maxLength}` };
  return { ok: true, key };
}
