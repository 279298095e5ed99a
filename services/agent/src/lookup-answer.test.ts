import { LookupMapping } from './http-mapping';
import { readLookupAnswer } from './lookup-answer';

const KEY = 'p-1/book-flight/forward';
const mapping = (fields: Record<string, unknown> = {}): LookupMapping => LookupMapping.parse({ url: 'http://flights.test/flights?ref={idempotencyKey}', ...fields });
const listed = mapping({ keyPath: 'ref' });
const body = (value: unknown): string => JSON.stringify(value);

describe('readLookupAnswer', () => {
  describe('when the remote says the effect does not exist', () => {
    it('reads a status in notFoundStatuses as not found, whatever its body', () => {
      expect(readLookupAnswer(mapping(), KEY, 404, 'no such booking')).toEqual({ kind: 'not-found' });
      expect(readLookupAnswer(mapping({ notFoundStatuses: [404, 410] }), KEY, 410, '')).toEqual({ kind: 'not-found' });
    });

    it('reads an empty list, or null at matchPath, as not found', () => {
      expect(readLookupAnswer(listed, KEY, 200, '[]')).toEqual({ kind: 'not-found' });
      expect(readLookupAnswer(mapping({ matchPath: 'data.bookings', keyPath: 'ref' }), KEY, 200, body({ data: { bookings: [] } }))).toEqual({ kind: 'not-found' });
      expect(readLookupAnswer(mapping({ matchPath: 'booking' }), KEY, 200, body({ booking: null }))).toEqual({ kind: 'not-found' });
    });
  });

  describe('when the remote holds the effect', () => {
    it('finds the one record of a list that holds the key at keyPath', () => {
      const record = { id: 7, ref: KEY, seat: '3A' };
      expect(readLookupAnswer(listed, KEY, 200, body([record]))).toEqual({ kind: 'found', record, count: 1 });
    });

    it('finds a single record answered as an object, with or without keyPath', () => {
      const record = { id: 7, ref: KEY };
      expect(readLookupAnswer(mapping(), KEY, 200, body(record))).toEqual({ kind: 'found', record, count: 1 });
      expect(readLookupAnswer(mapping({ matchPath: 'data', keyPath: 'ref' }), KEY, 200, body({ data: record }))).toEqual({ kind: 'found', record, count: 1 });
    });

    it('finds the first of several records that all hold the key, and counts them (duplicates made before)', () => {
      const records = [{ id: 1, ref: KEY }, { id: 2, ref: KEY }];
      expect(readLookupAnswer(listed, KEY, 200, body(records))).toEqual({ kind: 'found', record: records[0], count: 2 });
    });
  });

  describe('when the answer cannot tell (never "not found")', () => {
    it.each([
      [503, '{"error":"busy"}', 'it answered 503, which is neither a 2xx nor one of notFoundStatuses (404)'],
      [429, '', 'it answered 429'],
      [401, '{"error":"token expired"}', 'it answered 401'],
      [302, '', 'it answered 302'],
      [200, 'not json', "it answered 200 with a body that is not JSON: 'not json'"],
    ])('a %i answer is unknown', (status, text, why) => {
      const read = readLookupAnswer(mapping(), KEY, status, text);
      expect(read.kind).toBe('unknown');
      expect(read.kind === 'unknown' && read.why).toContain(why);
    });

    it('is unknown when matchPath is missing from the body, or holds neither a record nor a list', () => {
      expect(readLookupAnswer(mapping({ matchPath: 'data.bookings' }), KEY, 200, body({ data: {} }))).toEqual({
        kind: 'unknown',
        why: "its 200 answer has nothing at 'data.bookings'",
      });
      expect(readLookupAnswer(mapping({ matchPath: 'count' }), KEY, 200, body({ count: 0 }))).toEqual({
        kind: 'unknown',
        why: "its 200 answer holds 0 at 'count', neither a record nor a list of records",
      });
    });

    it('is unknown when a record holds another key at keyPath: the remote ignored the filter', () => {
      const read = readLookupAnswer(listed, KEY, 200, body([{ id: 1, ref: KEY }, { id: 2, ref: 'p-9/book-flight/forward' }]));
      expect(read).toEqual({
        kind: 'unknown',
        why:
          `1 of the 2 records it answered hold "p-9/book-flight/forward" at 'ref', not the key '${KEY}': ` +
          'the remote did not filter by the key as the lookup assumes; make its url select by the key',
      });
      // A single record for another key is the same mistake, not a find.
      expect(readLookupAnswer(mapping({ keyPath: 'ref' }), KEY, 200, body({ id: 2 })).kind).toBe('unknown');
    });

    it('is unknown when several records come back and no keyPath can tell them apart', () => {
      expect(readLookupAnswer(mapping(), KEY, 200, body([{ id: 1 }, { id: 2 }]))).toEqual({
        kind: 'unknown',
        why: "it answered 2 records and the lookup has no keyPath to tell whether they are this call's effects or the remote ignored the filter; set keyPath",
      });
    });
  });
});
