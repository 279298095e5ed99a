import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCall } from '@sas/agent';
import { PermanentError, TransientError, createLogger } from '@sas/runtime';
import { HttpMapping, type OperationMapping } from './http-mapping';
import { createHttpRemoteCall } from './http-remote-call';
import { keepAliveFetch, type HttpFetch } from './keep-alive-fetch';

/**
 * A flights API that ignores idempotency keys, as a plain json-server would: every POST books a
 * new flight, carrying the client's `ref`; `GET /flights?ref=` lists the bookings with that ref.
 * `loseNextReply` books and then answers 503, as a reply lost on the way back does.
 */
class KeylessFlights {
  readonly bookings: { id: number; ref: string; seat: string }[] = [];
  readonly requests: string[] = [];
  readonly traceparents: (string | string[] | undefined)[] = [];
  loseNextReply = false;
  lookupStatus: number | undefined;
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        this.requests.push(`${req.method} ${req.url}`);
        this.traceparents.push(req.headers['traceparent']);
        const url = new URL(req.url ?? '/', 'http://flights.invalid');
        const send = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.method === 'GET' && url.pathname === '/flights') {
          if (this.lookupStatus !== undefined) return send(this.lookupStatus, { error: 'lookup unavailable' });
          return send(200, this.bookings.filter((b) => b.ref === url.searchParams.get('ref')));
        }
        if (req.method === 'POST' && url.pathname === '/flights') {
          const { ref } = JSON.parse(raw) as { ref: string };
          const booking = { id: this.bookings.length + 1, ref, seat: `${this.bookings.length + 1}A` };
          this.bookings.push(booking);
          if (this.loseNextReply) {
            this.loseNextReply = false;
            return send(503, { error: 'gateway timeout' });
          }
          return send(201, booking);
        }
        send(404, { error: 'no route' });
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const call = (fields: Partial<AgentCall<unknown>> = {}): AgentCall<unknown> => ({
  agent: 'flights',
  operation: 'book',
  processId: 'p-1',
  orderId: 'trip-1',
  step: 'book-flight',
  mode: 'forward',
  payload: { seat: 'any' },
  input: { seat: 'any' },
  results: {},
  idempotencyKey: 'p-1/book-flight/forward',
  attempt: 1,
  tryNumber: 1,
  completeBy: Date.now() + 60_000,
  logger: createLogger({ service: 'http-lookup-test', instanceId: 'test-1', level: 'silent' }),
  signal: new AbortController().signal,
  ...fields,
});

const booking = (fields: Record<string, unknown> = {}): OperationMapping =>
  HttpMapping.parse({
    operations: {
      book: {
        url: '{env.FLIGHTS_URL}/flights',
        body: { ref: '{idempotencyKey}', orderId: '{orderId}' },
        ...fields,
      },
    },
  }).operations['book']!;
const lookup = { url: '{env.FLIGHTS_URL}/flights?ref={idempotencyKey}', keyPath: 'ref' };

describe.each([
  ['fetch', globalThis.fetch],
  ['keepAliveFetch', keepAliveFetch()],
] as const)('an operation with a lookup, against a remote that ignores idempotency keys (%s)', (_client, fetch: HttpFetch) => {
  let flights: KeylessFlights;
  let env: Record<string, string>;
  beforeEach(async () => {
    flights = new KeylessFlights();
    env = { FLIGHTS_URL: await flights.start() };
  });
  afterEach(() => flights.stop());

  it('books twice when a reply is lost and there is no lookup (what the lookup is for)', async () => {
    const book = createHttpRemoteCall(booking(), { env, fetch });
    flights.loseNextReply = true;
    await expect(book(call())).rejects.toBeInstanceOf(TransientError);
    await book(call({ tryNumber: 2 }));
    expect(flights.bookings.map((b) => b.ref)).toEqual(['p-1/book-flight/forward', 'p-1/book-flight/forward']);
  });

  it('books once when a reply is lost: the retry finds the booking and takes it as the result, making no call', async () => {
    const book = createHttpRemoteCall(booking({ lookup }), { env, fetch });
    flights.loseNextReply = true;
    await expect(book(call())).rejects.toBeInstanceOf(TransientError);
    // A redelivery after a kill -9 arrives as a first try again: the lookup is asked all the same.
    const result = await book(call({ tryNumber: 1, attempt: 2 }));
    expect(result).toEqual({ id: 1, ref: 'p-1/book-flight/forward', seat: '1A' });
    expect(flights.bookings).toHaveLength(1);
    expect(flights.requests).toEqual([
      'GET /flights?ref=p-1%2Fbook-flight%2Fforward',
      'POST /flights',
      'GET /flights?ref=p-1%2Fbook-flight%2Fforward',
    ]);
  });

  it('asks before the first try too, and calls when nothing is found', async () => {
    const result = await createHttpRemoteCall(booking({ lookup }), { env, fetch })(call());
    expect(result).toEqual({ id: 1, ref: 'p-1/book-flight/forward', seat: '1A' });
    expect(flights.requests).toEqual(['GET /flights?ref=p-1%2Fbook-flight%2Fforward', 'POST /flights']);
  });

  it('sends the order\'s trace context on the lookup as on the call, when the agent traces', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await createHttpRemoteCall(booking({ lookup }), { env, fetch })(call({ traceparent }));
    expect(flights.traceparents).toEqual([traceparent, traceparent]);
  });

  it('reads a found record by the lookup\'s own resultPath and resultFields when it names either (an absent resultPath: the whole record)', async () => {
    flights.bookings.push({ id: 9, ref: 'p-1/book-flight/forward', seat: '9C' });
    const mapping = booking({ resultPath: 'data', lookup: { ...lookup, resultPath: 'ref', resultFields: {} } });
    // 'ref' is text, not an object: the effect exists but its result cannot be read, so the try fails as transient.
    await expect(createHttpRemoteCall(mapping, { env, fetch })(call())).rejects.toThrow(
      "the lookup of flights/book found the effect but not its result (ref: not an object); no call was made, and the try is retried: point the lookup's resultPath and resultFields at the result in a found record",
    );
    const fields = booking({ resultPath: 'data', lookup: { ...lookup, resultFields: { bookingId: 'id' } } });
    await expect(createHttpRemoteCall(fields, { env, fetch })(call())).resolves.toEqual({ id: 9, ref: 'p-1/book-flight/forward', seat: '9C', bookingId: 9 });
    expect(flights.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
  });

  it.each([503, 429, 401])('fails the try as transient and makes no call when the lookup answers %i', async (status) => {
    flights.lookupStatus = status;
    const failure = await createHttpRemoteCall(booking({ lookup }), { env, fetch })(call()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toBe(
      `the lookup of flights/book cannot tell whether the effect exists: it answered ${status}, which is neither a 2xx nor one of notFoundStatuses (404); ` +
        'no call was made and the try is retried (a lookup that cannot tell is never taken as "not found")',
    );
    expect(flights.bookings).toEqual([]);
  });

  it('fails the try as transient when the lookup cannot reach the remote', async () => {
    const mapping = booking({ lookup: { ...lookup, url: 'http://127.0.0.1:1/flights?ref={idempotencyKey}' } });
    const failure = await createHttpRemoteCall(mapping, { env, fetch })(call()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toMatch(/^the lookup of flights\/book could not reach http:\/\/127\.0\.0\.1:1\/flights\?ref=p-1%2Fbook-flight%2Fforward \(.+\); no call was made/);
    expect(flights.requests).toEqual([]);
  });

  it('stops at complete-by: an aborted lookup is transient and nothing is booked', async () => {
    const controller = new AbortController();
    controller.abort();
    const failure = await createHttpRemoteCall(booking({ lookup }), { env, fetch })(call({ signal: controller.signal })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toBe(
      'the lookup of flights/book was aborted by the agent (complete-by reached); no call was made and the try is retried (a lookup that cannot tell is never taken as "not found")',
    );
    expect(flights.bookings).toEqual([]);
  });

  it('fails permanently, sending nothing, when the lookup refers to what the request does not carry', async () => {
    const mapping = booking({ lookup: { ...lookup, url: '{env.FLIGHTS_URL}/flights?ref={payload.ticket}' } });
    const failure = await createHttpRemoteCall(mapping, { env, fetch })(call()).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PermanentError);
    expect((failure as Error).message).toBe('the mapping of flights/book needs {payload.ticket}, which this request does not carry; nothing was sent');
    expect(flights.requests).toEqual([]);
  });

  it('works for an undo as for a forward call: a repeated cancel finds its own earlier effect by its own key', async () => {
    const cancel = createHttpRemoteCall(booking({ lookup }), { env, fetch });
    const undo = call({ operation: 'cancel', mode: 'compensate', idempotencyKey: 'p-1/book-flight/compensate', compensates: { idempotencyKey: 'p-1/book-flight/forward', result: null } });
    flights.loseNextReply = true;
    await expect(cancel(undo)).rejects.toBeInstanceOf(TransientError);
    await expect(cancel({ ...undo, tryNumber: 2 })).resolves.toEqual({ id: 1, ref: 'p-1/book-flight/compensate', seat: '1A' });
    expect(flights.bookings).toHaveLength(1);
  });
});
