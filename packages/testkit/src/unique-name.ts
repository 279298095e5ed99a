import { randomBytes } from 'node:crypto';

let counter = 0;

/** Longest prefix kept, so the whole name stays under MongoDB's 63-byte database-name limit. */
const MAX_PREFIX = 32;

/**
 * A name no other call, in this process or another, returns: `<prefix>-<pid>-<counter>-<random>`.
 * Each test owns its queue prefix and database with it, so tests never see each other's data.
 * Only letters, digits, `-` and `_` appear (other characters in `prefix` become `_`), which makes
 * it valid as a BullMQ queue prefix (no `:`) and as a MongoDB database name (no `.`, `/`, `$`, space).
 */
export function uniqueName(prefix: string): string {
  counter += 1;
  const safePrefix = prefix.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_PREFIX) || 'test';
  return `${safePrefix}-${process.pid}-${counter}-${randomBytes(3).toString('hex')}`;
}
