import { pino } from 'pino';
import { RemoteSim } from './remote-sim';
import { RemoteSimServer } from './remote-sim-server';
import { seededRandom } from './seeded-random';

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('RemoteSimServer over HTTP', () => {
  let server: RemoteSimServer;
  let base: string;

  beforeEach(async () => {
    const sim = new RemoteSim({ clock: { now: () => Date.now() }, random: seededRandom(42) });
    server = new RemoteSimServer({ sim, logger: pino({ level: 'silent' }), maxBodyBytes: 1024 });
    const port = await server.start(0, '127.0.0.1');
    base = `http://127.0.0.1:${port}`;
  });

  afterEach(async () => {
    await server.close();
  });

  function post(path: string, key: string | undefined, body: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key !== undefined) headers['Idempotency-Key'] = key;
    return fetch(`${base}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body), signal });
  }

  function putFaults(service: string, faults: unknown): Promise<Response> {
    return fetch(`${base}/admin/faults/${service}`, { method: 'PUT', body: JSON.stringify(faults) });
  }

  it('applies a call once and replays it with Idempotent-Replayed', async () => {
    const first = await post('/services/payment/charge', 'k-1', { orderId: 'o-1', payload: { amount: 9 } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    const firstBody: unknown = await first.json();
    expect(firstBody).toMatchObject({ result: { amount: 9 } });

    const again = await post('/services/payment/charge', 'k-1', { orderId: 'o-1', payload: { amount: 9 } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);

    const ledger = (await (await fetch(`${base}/ledger`)).json()) as { effects: unknown[] };
    expect(ledger.effects).toHaveLength(1);
  });

  it('shows in GET /ledger the earlier results a call was given, under inputs', async () => {
    const results = { 'reserve-inventory': { reservationId: 'rsv-1' } };
    const created = await post('/services/shipping/create', 'k-1', { orderId: 'o-1', payload: {}, results });
    expect(created.status).toBe(200);
    const ledger = (await (await fetch(`${base}/ledger`)).json()) as { effects: unknown[] };
    expect(ledger.effects).toEqual([expect.objectContaining({ operation: 'create', inputs: results })]);
  });

  it('answers 400 to a missing Idempotency-Key and to a body that is not JSON', async () => {
    const noKey = await post('/services/payment/charge', undefined, { orderId: 'o-1', payload: {} });
    expect(noKey.status).toBe(400);
    expect(await noKey.json()).toEqual({
      error: 'Missing Idempotency-Key header; send one stable key per step so retries cannot apply the effect twice',
    });
    const notJson = await post('/services/payment/charge', 'k', '{"orderId":');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: string }).error).toMatch(/^Body is not valid JSON \(/);
  });

  it('reads Compensates-Idempotency-Key from HTTP: the undo tombstones the forward key, which is then refused', async () => {
    const headers = { 'content-type': 'application/json', 'Idempotency-Key': 'o-1/pay/compensate', 'Compensates-Idempotency-Key': 'o-1/pay/forward' };
    const refund = await fetch(`${base}/services/payment/refund`, { method: 'POST', headers, body: JSON.stringify({ orderId: 'o-1', payload: {} }) });
    expect(refund.status).toBe(200);

    const charge = await post('/services/payment/charge', 'o-1/pay/forward', { orderId: 'o-1', payload: { amount: 5 } });
    expect(charge.status).toBe(409);
    expect(((await charge.json()) as { error: string }).error).toBe(
      "payment.charge 'o-1/pay/forward' was already compensated (undo eff-000001); the forward call is refused so its undo cannot be overtaken. " +
        'Do not retry it: the step counts as undone',
    );
    const ledger = (await (await fetch(`${base}/ledger?orderId=o-1`)).json()) as { effects: unknown[] };
    expect(ledger.effects).toEqual([
      {
        effectId: 'eff-000001',
        service: 'payment',
        operation: 'refund',
        orderId: 'o-1',
        idempotencyKey: 'o-1/pay/compensate',
        at: expect.any(Number),
        result: { refundId: 're-000001', chargeId: null, amount: 0, originalEffectId: null, noop: true },
        compensates: 'o-1/pay/forward',
      },
    ]);
  });

  it('replaces, not merges, a service’s faults on PUT /admin/faults/:service', async () => {
    await putFaults('payment', { errorRate: 1, latencyMs: 5 });
    const second = await putFaults('payment', { permanentFailOrders: ['o-9'] });
    const faults = (await (await fetch(`${base}/admin/faults`)).json()) as { faults: { payment: unknown } };
    expect(await second.json()).toEqual({ service: 'payment', faults: faults.faults.payment });
    expect(faults.faults.payment).toEqual({
      errorRate: 0,
      lostReplyRate: 0,
      latencyMs: 0,
      hang: false,
      outageUntil: null,
      permanentFailOrders: ['o-9'],
      permanentFailOperations: [],
      holdOperations: [],
    });
  });

  it('answers 413 to a body over the limit', async () => {
    const response = await post('/services/payment/charge', 'k', { orderId: 'o-1', payload: { blob: 'x'.repeat(2048) } });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'Request body exceeds 1024 bytes; send a smaller payload' });
  });

  it('sends Retry-After during an outage', async () => {
    expect((await putFaults('shipping', { outageMs: 60_000 })).status).toBe(200);
    const response = await post('/services/shipping/create', 'k', { orderId: 'o-1', payload: {} });
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
  });

  it('answers after injected latency', async () => {
    await putFaults('inventory', { latencyMs: 30 });
    const response = await post('/services/inventory/reserve', 'k', { orderId: 'o-1', payload: {} });
    expect(response.status).toBe(200);
    expect(server.heldRequests).toBe(0);
  });

  it('holds a hanging request until the client aborts', async () => {
    await putFaults('payment', { hang: true });
    const controller = new AbortController();
    const outcome = post('/services/payment/charge', 'k', { orderId: 'o-1', payload: {} }, controller.signal).then(
      () => 'answered',
      (err: Error) => err.name,
    );
    await waitFor(() => server.heldRequests === 1, 'the request to be held');
    controller.abort();
    expect(await outcome).toBe('AbortError');
    await waitFor(() => server.heldRequests === 0, 'the held request to be released');
    const stats = (await (await fetch(`${base}/stats`)).json()) as { services: { payment: { outcomes: { hang: number } } } };
    expect(stats.services.payment.outcomes.hang).toBe(1);
  });

  it('drops a hanging request when the server closes, and close keeps its promise', async () => {
    await putFaults('payment', { hang: true });
    const outcome = post('/services/payment/charge', 'k', { orderId: 'o-1', payload: {} }).then(
      () => 'answered',
      (err: Error) => err.message,
    );
    await waitFor(() => server.heldRequests === 1, 'the request to be held');
    const closing = server.close();
    expect(server.close()).toBe(closing);
    await closing;
    expect(await outcome).toBe('fetch failed');
    expect(server.heldRequests).toBe(0);
  });
});
