import type { ZodError } from 'zod';

/** Flattens a validation error into one readable line per issue: `payload.amount: Expected number`. */
export function describeIssues(error: ZodError): string[] {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(message)'}: ${i.message}`);
}
