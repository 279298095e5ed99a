import { z } from 'zod';

/** Largest number of entries one list request may ask for. */
export const MAX_LIST_LIMIT = 500;
/** Entries returned when `limit` is not given. */
export const DEFAULT_LIST_LIMIT = 50;

/**
 * `limit`: a page size from 1 to `max`, shared by every list endpoint so they all refuse
 * `limit=abc` or `limit=100000` with the same message instead of guessing.
 */
export function limitParam(max: number, fallback: number) {
  const message = `limit must be a whole number from 1 to ${max}; leave it out for ${fallback}`;
  return z.coerce.number({ invalid_type_error: message }).int(message).min(1, message).max(max, message).default(fallback);
}

/** Query of the endpoints that list the newest entries, alerts or dead letters (`/api/alerts`, `/api/dead-letters`). */
export const LimitQuery = z
  .object({ limit: limitParam(MAX_LIST_LIMIT, DEFAULT_LIST_LIMIT) })
  .strict('unknown query parameter; only limit is accepted');
export type LimitQuery = z.infer<typeof LimitQuery>;
