import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCall } from '@sas/agent';
import { TransientError, createLogger } from '@sas/runtime';
import { HttpMapping } from './http-mapping';
import { createHttpRemoteCall } from './http-remote-call';

/**
 * The json-server recipe of docs/http-mapping.md: `POST /flights` books with the client's `ref`,
 * `GET /flights?ref=` lists by ref, `DELETE /flights/:id` removes one booking (404 when none).
 */
class Flights {
  readonly bookings: { id: number; ref: string }[] = [];
  readonly requests: string[] = [];
  lookupStatus: number | undefined;
  private readonly server = createServer((req, res) => {
    this.requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://flights.invalid');
    const send = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const id = /^\/flights\/(\d+)$/.exec(url.pathname)?.[1];
    if (req.method === 'GET' && url.pathname === '/flights') {
      if (this.lookupStatus !== undefined) return send(this.lookupStatus, { error: 'lookup unavailable' });
      return send(200, this.bookings.filter((b) => b.ref === url.searchParams.get('ref')));
    }
    if (req.method === 'DELETE' && id !== undefined) {
      const at = this.bookings.findIndex((b) => b.id === Number(id));
      if (at < 0) return send(404, {});
      this.bookings.splice(at, 1);
      return send(200, {});
    }
    send(404, { error: 'no route' });
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const FORWARD_KEY = 'p-1/book-flight/forward';
const now = Date.now();

const undo = (compensates: NonNullable<AgentCall<unknown>['compensates']>): AgentCall<unknown> => ({
  agent: 'flights',
  operation: 'cancel',
  processId: 'p-1',
  orderId: 'trip-1',
  step: 'book-flight',
  mode: 'compensate',
  payload: {},
  input: {},
  results: {},
  idempotencyKey: `${FORWARD_KEY}/compensate`,
  attempt: 3,
  tryNumber: 1,
  completeBy: now + 60_000,
  logger: createLogger({ service: 'forward-lookup-test', instanceId: 'test-1', level: 'silent' }),
  signal: new AbortController().signal,
  compensates,
});

/** The recipe's undo: DELETE by the booking's id, found by the forward key when the result is unknown. */
const cancel = (withForwardLookup: boolean): HttpMapping['operations'][string] =>
  HttpMapping.parse({
    operations: {
      cancel: {
        method: 'DELETE',
        url: '{env.FLIGHTS_URL}/flights/{compensates.result.id}',
        body: null,
        alreadyDoneStatuses: [404],
        ...(withForwardLookup && { forwardLookup: { url: '{env.FLIGHTS_URL}/flights?ref={compensates.idempotencyKey}', keyPath: 'ref' } }),
      },
    },
  }).operations['cancel']!;

describe('an undo with a forwardLookup, at a remote that ignores idempotency keys', () => {
  let flights: Flights;
  let env: Record<string, string>;
  const clock = { now: () => now };
  beforeEach(async () => {
    flights = new Flights();
    env = { FLIGHTS_URL: await flights.start() };
  });
  afterEach(() => flights.stop());

  it('finds the record of a forward call whose outcome is unknown by its key, and undoes it by the found id', async () => {
    flights.bookings.push({ id: 7, ref: 'another/key' }, { id: 8, ref: FORWARD_KEY });
    const result = await createHttpRemoteCall(cancel(true), { env, clock })(undo({ idempotencyKey: FORWARD_KEY, result: null, completeBy: now - 1 }));
    expect(result).toEqual({});
    expect(flights.requests).toEqual([`GET /flights?ref=${encodeURIComponent(FORWARD_KEY)}`, 'DELETE /flights/8']);
    expect(flights.bookings).toEqual([{ id: 7, ref: 'another/key' }]);
  });

  it('answers nothing to undo, sending nothing, when no record is found and the forward call is past its complete-by', async () => {
    const result = await createHttpRemoteCall(cancel(true), { env, clock })(undo({ idempotencyKey: FORWARD_KEY, result: null, completeBy: now }));
    expect(result).toEqual({});
    expect(flights.requests).toEqual([`GET /flights?ref=${encodeURIComponent(FORWARD_KEY)}`]);
  });

  it('does not take "not found" as nothing to undo before the forward call\'s complete-by: transient, retried then', async () => {
    const failure = await createHttpRemoteCall(cancel(true), { env, clock })(undo({ idempotencyKey: FORWARD_KEY, result: null, completeBy: now + 4000 })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as TransientError).retryAfterMs).toBe(4000);
    expect((failure as Error).message).toContain('but the forward call may still land until its complete-by');
    expect(flights.requests).toHaveLength(1);
  });

  it('does not take "not found" as nothing to undo when the request does not say when the forward call\'s complete-by is', async () => {
    const failure = await createHttpRemoteCall(cancel(true), { env, clock })(undo({ idempotencyKey: FORWARD_KEY, result: null })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toContain("the request does not say when the forward call's complete-by passes");
    expect(flights.requests).toHaveLength(1);
  });

  it('fails the try as transient, sending no undo, when the forwardLookup cannot tell', async () => {
    flights.bookings.push({ id: 8, ref: FORWARD_KEY });
    flights.lookupStatus = 503;
    const failure = await createHttpRemoteCall(cancel(true), { env, clock })(undo({ idempotencyKey: FORWARD_KEY, result: null, completeBy: now - 1 })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as Error).message).toContain('the forwardLookup of flights/cancel cannot tell whether the effect exists');
    expect(flights.bookings).toHaveLength(1);
  });

  it('asks nothing when the forward result is known, and undoes by it', async () => {
    flights.bookings.push({ id: 8, ref: FORWARD_KEY });
    await createHttpRemoteCall(cancel(true), { env, clock })(undo({ idempotencyKey: FORWARD_KEY, result: { id: 8, ref: FORWARD_KEY }, completeBy: now - 1 }));
    expect(flights.requests).toEqual(['DELETE /flights/8']);
  });

  it('without a forwardLookup, refuses an undo of an unknown outcome, sending nothing (the record stays)', async () => {
    flights.bookings.push({ id: 8, ref: FORWARD_KEY });
    await expect(createHttpRemoteCall(cancel(false), { env, clock })(undo({ idempotencyKey: FORWARD_KEY, result: null, completeBy: now - 1 }))).rejects.toThrow(
      'the mapping of flights/cancel needs {compensates.result.id}, which this request does not carry; nothing was sent',
    );
    expect(flights.bookings).toHaveLength(1);
  });

  it('defaults the key a found record must hold to the forward key', () => {
    expect(cancel(true).forwardLookup).toMatchObject({ key: '{compensates.idempotencyKey}', method: 'GET', notFoundStatuses: [404] });
  });
});
