/** Outcome of a conditional write: expected outcomes are values, not exceptions. */
export type CommitResult = { ok: true } | { ok: false; reason: 'conflict' | 'duplicate' };
