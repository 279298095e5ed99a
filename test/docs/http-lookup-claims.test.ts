import type { AgentCall } from '@sas/agent';
import { HttpMapping, httpAgent, type HttpFetch } from '@sas/http-agent';
import { TransientError, createLogger } from '@sas/runtime';
import { docBlocks } from './doc-blocks';

/**
 * The lookup example of docs/http-mapping.md ("A remote that ignores idempotency keys"), parsed as
 * the agent parses a mapping file and run against a flights API that ignores keys: what the page
 * says about it holds.
 */

const block = docBlocks('http-mapping.md').find((b) => b.lang === 'json' && b.code.includes('"lookup"'));
const mapping = HttpMapping.parse(JSON.parse(block?.code ?? 'null'));

/** The flights API of the example, with its bookings; `lookupStatus` makes its lookup fail. */
function flights(bookings: { id: number; ref: string; seat: string }[], lookupStatus?: number): { fetch: HttpFetch; sent: string[] } {
  const sent: string[] = [];
  const fetch: HttpFetch = async (url, init) => {
    sent.push(`${init.method} ${url}`);
    const { pathname, searchParams } = new URL(url);
    const reply = (status: number, body: unknown): Awaited<ReturnType<HttpFetch>> => ({ status, headers: { get: () => null }, text: async () => JSON.stringify(body) });
    if (init.method === 'GET' && pathname === '/flights') {
      return lookupStatus ? reply(lookupStatus, { error: 'down' }) : reply(200, bookings.filter((b) => b.ref === searchParams.get('ref')));
    }
    const booking = { id: bookings.length + 1, ...(JSON.parse(String(init.body)) as { ref: string; seat: string }) };
    bookings.push(booking);
    return reply(201, booking);
  };
  return { fetch, sent };
}

const book: AgentCall<unknown> = {
  agent: 'flights',
  operation: 'book',
  processId: 'p-1',
  orderId: 'trip-1',
  step: 'book-flight',
  mode: 'forward',
  payload: { seat: '3A' },
  input: { seat: '3A' },
  results: {},
  idempotencyKey: 'p-1/book-flight',
  attempt: 1,
  tryNumber: 1,
  completeBy: Date.now() + 60_000,
  logger: createLogger({ service: 'docs-test', instanceId: 'docs-1', level: 'silent' }),
  signal: new AbortController().signal,
};
const env = { FLIGHTS_URL: 'http://flights.test' };

describe('the lookup example (docs/http-mapping.md, "A remote that ignores idempotency keys")', () => {
  it('is a valid mapping', () => {
    expect(block).toBeDefined();
    expect(mapping.operations['book']?.lookup).toMatchObject({ keyPath: 'ref', notFoundStatuses: [404] });
  });

  it('asks before the first try and books when nothing is found', async () => {
    const bookings: { id: number; ref: string; seat: string }[] = [];
    const { fetch, sent } = flights(bookings);
    await expect(httpAgent('flights', mapping, { env, fetch }).operations['book']!(book)).resolves.toEqual({ id: 1, ref: 'p-1/book-flight', seat: '3A' });
    expect(sent).toEqual(['GET http://flights.test/flights?ref=p-1%2Fbook-flight', 'POST http://flights.test/flights']);
  });

  it('takes a found booking as the result and makes no call', async () => {
    const { fetch, sent } = flights([{ id: 4, ref: 'p-1/book-flight', seat: '3A' }]);
    await expect(httpAgent('flights', mapping, { env, fetch }).operations['book']!(book)).resolves.toEqual({ id: 4, ref: 'p-1/book-flight', seat: '3A' });
    expect(sent).toEqual(['GET http://flights.test/flights?ref=p-1%2Fbook-flight']);
  });

  it('never takes a failed lookup, or an unfiltered answer, as "not found": the try fails as transient and nothing is booked', async () => {
    const down = flights([], 503);
    await expect(httpAgent('flights', mapping, { env, fetch: down.fetch }).operations['book']!(book)).rejects.toBeInstanceOf(TransientError);
    // A remote that ignored ?ref= answers someone else's booking.
    const bookings = [{ id: 1, ref: 'p-9/book-flight', seat: '1A' }];
    const other = flights(bookings);
    const wrong: HttpFetch = (url, init) => other.fetch(init.method === 'GET' ? url.replace(/\?.*$/, '?ref=p-9%2Fbook-flight') : url, init);
    await expect(httpAgent('flights', mapping, { env, fetch: wrong }).operations['book']!(book)).rejects.toThrow(/the remote did not filter by the key/);
    expect(bookings).toHaveLength(1);
  });
});
