import { createHash } from 'node:crypto';
import type { SubmissionMessage } from '@sas/contracts';

/**
 * Identifies a submission by what it asks for: workflow (and pinned version), payload and reply
 * queue, with object keys in a canonical order. A redelivered message, or an application retrying
 * its own send, has the same fingerprint and is the same order; a different submission that
 * reuses a taken orderId does not, and gets `Duplicate`. (Stripe treats idempotency keys this way.)
 */
export function submissionFingerprint(message: SubmissionMessage): string {
  const canonical = canonicalJson({
    workflow: message.workflow,
    workflowVersion: message.workflowVersion ?? null,
    payload: message.payload,
    replyTo: message.replyTo ?? null,
  });
  return createHash('sha256').update(canonical).digest('hex');
}

// Payloads are at most MAX_PAYLOAD_DEPTH deep (validated before), so recursion is bounded.
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
