import type { LookupMapping } from './http-mapping';
import { classifyStatus } from './status-class';
import { lookup as valueAt } from './template';

/**
 * What a lookup's answer says about the effect:
 * - `found`: it exists; `record` is what the step's result is read from (`count` records matched,
 *   more than one when the remote already holds duplicates from before);
 * - `not-found`: it does not, so the call is made;
 * - `unknown`: the answer cannot tell (`why` says what was wrong): the try fails as transient, and
 *   is never taken as "not found", which would make a second effect.
 */
export type LookupAnswer =
  | { kind: 'found'; record: unknown; count: number }
  | { kind: 'not-found' }
  | { kind: 'unknown'; why: string };

/**
 * Reads a lookup's answer, in this order:
 * 1. a status in `notFoundStatuses`: not found;
 * 2. any other status that is not 2xx: unknown;
 * 3. a 2xx whose body is not JSON, or has nothing at `matchPath`: unknown;
 * 4. `null`, or an empty list, at `matchPath`: not found;
 * 5. an object there is one record, a list a list of records (anything else: unknown);
 * 6. with `keyPath`, every record must hold `key` there, or the remote did not filter by the key
 *    as the mapping assumes: unknown; without it, more than one record is unknown for the same reason;
 * 7. otherwise found, the first record.
 *
 * Pure: `key` is the lookup's `key` template already filled.
 */
export function readLookupAnswer(mapping: LookupMapping, key: string, status: number, text: string): LookupAnswer {
  if (classifyStatus(status, { transient: [], alreadyDone: mapping.notFoundStatuses }) === 'already-done') return { kind: 'not-found' };
  if (status < 200 || status >= 300) {
    return { kind: 'unknown', why: `it answered ${status}, which is neither a 2xx nor one of notFoundStatuses (${mapping.notFoundStatuses.join(', ')})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unknown', why: `it answered ${status} with a body that is not JSON: '${text.slice(0, 200)}'` };
  }
  const at = mapping.matchPath === undefined ? json : valueAt(json, mapping.matchPath);
  const where = mapping.matchPath === undefined ? 'the body' : `'${mapping.matchPath}'`;
  if (at === undefined) return { kind: 'unknown', why: `its ${status} answer has nothing at ${where}` };
  if (at === null) return { kind: 'not-found' };
  if (typeof at !== 'object') return { kind: 'unknown', why: `its ${status} answer holds ${JSON.stringify(at)} at ${where}, neither a record nor a list of records` };
  const records: unknown[] = Array.isArray(at) ? at : [at];
  if (records.length === 0) return { kind: 'not-found' };
  if (mapping.keyPath !== undefined) {
    const keyPath = mapping.keyPath;
    const others = records.filter((r) => valueAt(r, keyPath) !== key);
    if (others.length > 0) {
      const seen = JSON.stringify(valueAt(others[0], keyPath) ?? null);
      return {
        kind: 'unknown',
        why:
          `${others.length} of the ${records.length} records it answered hold ${seen} at '${keyPath}', not the key '${key}': ` +
          'the remote did not filter by the key as the lookup assumes; make its url select by the key',
      };
    }
  } else if (records.length > 1) {
    return {
      kind: 'unknown',
      why: `it answered ${records.length} records and the lookup has no keyPath to tell whether they are this call's effects or the remote ignored the filter; set keyPath`,
    };
  }
  return { kind: 'found', record: records[0], count: records.length };
}
