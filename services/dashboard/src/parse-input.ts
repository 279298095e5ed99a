import { nestsDeeperThan } from '@sas/contracts';
import type { z } from 'zod';

/** Outcome of {@link parseInput}: bad input is an expected outcome, answered with 400, not thrown. */
export type ParsedInput<T> = { ok: true; data: T } | { ok: false; error: string };

/**
 * Validates a request's query, params or body and, when it is wrong, builds the one-line message
 * the API answers with: every problem, each naming the field and the value received, so the
 * caller can fix the request without reading the code. The schemas carry the "what to do" part.
 */
export function parseInput<S extends z.ZodTypeAny>(schema: S, input: unknown, where: 'query' | 'body' | 'path'): ParsedInput<z.infer<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data as z.infer<S> };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.join('.');
    const got =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((k) => `'${k}'`).join(', ')
        : issue.path.length === 1
          ? received(input, issue.path[0])
          : undefined;
    const named = field && !issue.message.startsWith(field) ? `${field}: ${issue.message}` : issue.message;
    return got === undefined ? named : `${named} (got ${got})`;
  });
  return { ok: false, error: `Bad request ${where}: ${problems.join('; ')}` };
}

/** How deep a received value may nest to be quoted in the answer. */
const QUOTED_DEPTH = 32;

/** The value the caller sent for a field, quoted and shortened, or undefined when there was none. */
function received(input: unknown, key: string | number | undefined): string | undefined {
  if (key === undefined || typeof input !== 'object' || input === null) return undefined;
  const value: unknown = (input as Record<string | number, unknown>)[key];
  if (value === undefined) return undefined;
  // JSON.stringify recurses: a value nested thousands deep would overflow the stack (a 500).
  if (nestsDeeperThan(value, QUOTED_DEPTH)) return `a value nested more than ${QUOTED_DEPTH} levels deep`;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `'${text.length > 80 ? `${text.slice(0, 80)}…` : text}'`;
}
