import { pino } from 'pino';
import type { Arrival } from './arrival-log';
import { RemoteSim } from './remote-sim';
import { RemoteSimServer } from './remote-sim-server';
import { seededRandom } from './seeded-random';

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('RemoteSimServer holding answers until released', () => {
  let server: RemoteSimServer;
  let base: string;

  beforeEach(async () => {
    const sim = new RemoteSim({ clock: { now: () => Date.now() }, random: seededRandom(42), mode: 'plain' });
    server = new RemoteSimServer({ sim, logger: pino({ level: 'silent' }) });
    base = `http://127.0.0.1:${await server.start(0, '127.0.0.1')}`;
    const put = await fetch(`${base}/admin/faults/payment`, { method: 'PUT', body: JSON.stringify({ holdOperations: ['charge'] }) });
    expect(put.status).toBe(200);
  });

  afterEach(async () => {
    await server.close();
  });

  const charge = (key: string, signal?: AbortSignal): Promise<Response> =>
    fetch(`${base}/services/payment/charge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ orderId: 'o-1', payload: { amount: 3 }, step: 'charge', attempt: 2, try: 1 }),
      signal,
    });
  const arrivals = async (): Promise<{ mode: string; arrivals: Arrival[] }> =>
    (await (await fetch(`${base}/arrivals?service=payment`)).json()) as { mode: string; arrivals: Arrival[] };

  it('applies the effect at once, holds the answer until POST /admin/release/:service, and notes when it was answered', async () => {
    const answer = charge('k-1');
    const held = await waitFor(async () => (await arrivals()).arrivals[0], 'the charge to arrive');
    expect(held).toMatchObject({ idempotencyKey: 'k-1', step: 'charge', attempt: 2, try: 1, outcome: 'ok', applied: true });
    expect(held.answeredAt).toBeUndefined();
    expect(((await (await fetch(`${base}/ledger`)).json()) as { effects: unknown[] }).effects).toHaveLength(1);
    expect(server.heldRequests).toBe(1);

    const release = await fetch(`${base}/admin/release/payment`, { method: 'POST' });
    expect(await release.json()).toEqual({ service: 'payment', released: 1 });
    expect((await answer).status).toBe(200);
    const [answered] = (await arrivals()).arrivals;
    expect(answered?.answeredAt).toBeGreaterThanOrEqual(held.at);
    expect((await arrivals()).mode).toBe('plain');
  });

  it('notes a held call whose client gave up as abandoned, never answered', async () => {
    const abort = new AbortController();
    const answer = charge('k-2', abort.signal).catch((e: unknown) => e);
    await waitFor(async () => (server.heldRequests === 1 ? true : undefined), 'the answer to be held');
    abort.abort();
    expect(await answer).toMatchObject({ name: 'AbortError' });
    const left = await waitFor(async () => (await arrivals()).arrivals.find((a) => a.abandonedAt !== undefined), 'the arrival to be noted abandoned');
    expect(left.answeredAt).toBeUndefined();
    expect(await (await fetch(`${base}/admin/release/payment`, { method: 'POST' })).json()).toEqual({ service: 'payment', released: 0 });
  });

  it('refuses to hold an operation the service does not have, and a release for an unknown service', async () => {
    const put = await fetch(`${base}/admin/faults/payment`, { method: 'PUT', body: JSON.stringify({ holdOperations: ['reserve'] }) });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({ error: "Invalid faults for payment: holdOperations: payment has no operation 'reserve'" });
    const release = await fetch(`${base}/admin/release/billing`, { method: 'POST' });
    expect(release.status).toBe(404);
    expect(await release.json()).toEqual({ error: "Unknown service 'billing'; use one of: payment, inventory, shipping, flight, hotel" });
  });
});
