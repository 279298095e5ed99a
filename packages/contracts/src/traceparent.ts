import { z } from 'zod';

// W3C Trace Context: version-traceid-parentid-flags, lowercase hex; all-zero ids and version ff are
// invalid. Later versions may append fields after the flags, which a version-00 reader ignores.
const TRACEPARENT = /^(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}(-[^\s]*)?$/;

/** Whether a string is a W3C `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header). */
export function isTraceparent(value: string): boolean {
  return value.length <= 256 && TRACEPARENT.test(value);
}

/**
 * The W3C trace context a message carries, so one order is one trace across every service.
 * Optional: messages from senders that do not trace (and every message in flight from before
 * tracing existed) have none. A malformed one is dropped (the field reads as absent, the
 * receiver starts a new trace), never a reason to reject the message: tracing must not cost an order.
 */
export const Traceparent = z
  .string()
  // A plain regex check, not a refine: zod's refinements cost several times more per message.
  .max(256)
  .regex(TRACEPARENT)
  .optional()
  .catch(undefined);
