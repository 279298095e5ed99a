import { submissionFingerprint, type SubmissionMessage } from '@sas/contracts';

/**
 * The BullMQ job id of a submission: its orderId and the first 16 hex digits of its fingerprint
 * (workflow, pinned version, payload, replyTo; keys in canonical order).
 *
 * Why both: BullMQ ignores a job whose id is still kept in the queue. Sending the same submission
 * again then adds nothing, which is right (the service would answer it as the first time). An id
 * from the orderId alone would also swallow a *different* submission under a taken orderId, and
 * the application would never hear the `Duplicate` the submission service answers it with.
 *
 * The orderId is URI-encoded (BullMQ refuses `:` in custom ids; encoding keeps distinct orderIds
 * distinct), and the fixed-length suffix after the last `.` keeps the id unambiguous.
 *
 * @example
 * ```ts
 * submissionJobId({ orderId: 'o:1', workflow: 'order-fulfilment', payload: {} }) // 'o%3A1.3f0c…' (16 hex digits)
 * ```
 */
export function submissionJobId(message: Pick<SubmissionMessage, 'orderId' | 'workflow' | 'workflowVersion' | 'payload' | 'replyTo'>): string {
  return `${encodeURIComponent(message.orderId)}.${submissionFingerprint(message).slice(0, 16)}`;
}
