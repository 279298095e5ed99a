import { createHash } from 'node:crypto';

/**
 * The event id (and BullMQ job id) of the `Rejected` answer to a submission.
 *
 * A redelivery of the same submission must get the same id, so the application (or BullMQ, which
 * drops a job id it already holds) sees one `Rejected`. Two different orders must get different
 * ids even when they ask for the same thing: the submission fingerprint leaves the orderId out (it
 * says whether a reused orderId is the same order), so an id built from it alone made the second
 * order's `Rejected` a "repeat" of the first one's, and that application never heard of its order.
 *
 * @returns `rejected.` followed by 40 hex digits of SHA-256 over the orderId and the fingerprint
 */
export function rejectedEventId(orderId: string, fingerprint: string): string {
  // The NUL separator keeps ("ab", "c…") and ("a", "bc…") apart.
  const digest = createHash('sha256').update(orderId).update('\0').update(fingerprint).digest('hex');
  return `rejected.${digest.slice(0, 40)}`;
}
