import type { ZodError } from 'zod';

/**
 * Flattens a validation error into one readable line per issue (`payload: Expected object`), so a
 * 400 answer tells the client which field to fix. (`@sas/contracts` has the same helper; this
 * service does not depend on contracts because its HTTP API is its own.)
 */
export function describeIssues(error: ZodError): string[] {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.message}`);
}
