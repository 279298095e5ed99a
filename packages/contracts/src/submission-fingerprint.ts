import { createHash } from 'node:crypto';
import type { SubmissionMessage } from './submission-message';

/**
 * Identifies a submission by what it asks for: workflow (and pinned version), payload and reply
 * queue, with object keys in a canonical order. A redelivered message, or an application retrying
 * its own send, has the same fingerprint and is the same order; a different submission that
 * reuses a taken orderId does not, and gets `Duplicate`. (Stripe treats idempotency keys this way.)
 *
 * It lives in the contracts because both sides need the same answer: the submission service
 * compares fingerprints, and `@sas/client` derives the submission's job id from one.
 *
 * @returns the hex SHA-256 of the canonical JSON of those fields
 */
export function submissionFingerprint(message: Pick<SubmissionMessage, 'workflow' | 'workflowVersion' | 'payload' | 'replyTo'>): string {
  const canonical = canonicalJson({
    workflow: message.workflow,
    workflowVersion: message.workflowVersion ?? null,
    payload: message.payload,
    replyTo: message.replyTo ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

/**
 * JSON with object keys sorted and `undefined` members left out, so two values that are equal as
 * JSON serialise to the same string whatever order their keys were written in. Payloads are at
 * most MAX_PAYLOAD_DEPTH deep (validated before), so the recursion is bounded.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
