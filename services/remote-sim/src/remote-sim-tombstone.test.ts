import type { Effect } from './effect-ledger';
import { RemoteSim } from './remote-sim';
import type { RemoteCallRequest } from './remote-call-body';
import { seededRandom } from './seeded-random';
import type { SimResponse } from './sim-response';

type Answer = Extract<SimResponse, { kind: 'answer' }>;

interface CallOptions {
  payload?: Record<string, unknown>;
  /** The `Compensates-Idempotency-Key` header. */
  compensatesKey?: string;
}

function setup(): {
  sim: RemoteSim;
  call: (service: string, operation: string, key: string, orderId: string, options?: CallOptions) => Answer;
} {
  let now = 1_000_000;
  const sim = new RemoteSim({ clock: { now: () => (now += 10) }, random: seededRandom(1) });
  const call = (
    service: string,
    operation: string,
    key: string,
    orderId: string,
    options: CallOptions = {},
  ): Answer => {
    const request: RemoteCallRequest = {
      service,
      operation,
      idempotencyKey: key,
      compensatesKey: options.compensatesKey,
      body: { orderId, payload: options.payload ?? {} },
    };
    const response = sim.call(request);
    if (response.kind !== 'answer') throw new Error(`expected an answer, got ${response.kind}`);
    return response;
  };
  return { sim, call };
}

const refusal = (key: string, undo: string): string =>
  `payment.charge '${key}' was already compensated (undo ${undo}); the forward call is refused so its undo cannot be overtaken. ` +
  'Do not retry it: the step counts as undone';

describe('RemoteSim when an undo arrives before its forward call', () => {
  it('records the undo as a no-op that tombstones the forward key, then refuses the forward call with no effect', () => {
    const { sim, call } = setup();

    const refund = call('payment', 'refund', 'o-1/charge/compensate', 'o-1', {
      payload: { originalIdempotencyKey: 'o-1/charge/forward' },
    });
    const charge = call('payment', 'charge', 'o-1/charge/forward', 'o-1', { payload: { amount: 30 } });

    expect(refund.status).toBe(200);
    expect(refund.body).toEqual({
      effectId: 'eff-000001',
      service: 'payment',
      operation: 'refund',
      orderId: 'o-1',
      idempotencyKey: 'o-1/charge/compensate',
      result: { refundId: 're-000001', chargeId: null, amount: 0, originalEffectId: null, noop: true },
    });
    expect(charge.status).toBe(409);
    expect(charge.body).toEqual({ error: refusal('o-1/charge/forward', 'eff-000001') });
    expect(sim.ledger()).toEqual([
      expect.objectContaining({
        effectId: 'eff-000001',
        operation: 'refund',
        compensates: 'o-1/charge/forward',
      }),
    ]);
    expect(sim.stats().services.payment.operations['charge']).toMatchObject({ ok: 0, tombstoned: 1 });
  });

  it('keeps refusing every retry of the forward call, and replays the undo itself', () => {
    const { sim, call } = setup();
    const first = call('inventory', 'release', 'rel-k', 'o-1', { compensatesKey: 'rsv-k' });

    const retries = [1, 2, 3].map(() => call('inventory', 'reserve', 'rsv-k', 'o-1').status);
    const replay = call('inventory', 'release', 'rel-k', 'o-1', { compensatesKey: 'rsv-k' });

    expect(retries).toEqual([409, 409, 409]);
    expect(replay.status).toBe(200);
    expect(replay.headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(replay.body).toEqual(first.body);
    expect(first.body).toMatchObject({ result: { reservationId: null, originalEffectId: null, noop: true } });
    expect(sim.ledger().map((e) => e.operation)).toEqual(['release']);
  });

  it('takes the forward key from the Compensates-Idempotency-Key header over the payload', () => {
    const { sim, call } = setup();
    call('payment', 'refund', 'refund-k', 'o-1', {
      compensatesKey: 'by-header',
      payload: { originalIdempotencyKey: 'by-payload' },
    });

    expect(call('payment', 'charge', 'by-header', 'o-1').status).toBe(409);
    expect(call('payment', 'charge', 'by-payload', 'o-1').status).toBe(200);
    expect(sim.ledger().map((e) => [e.operation, e.idempotencyKey])).toEqual([
      ['refund', 'refund-k'],
      ['charge', 'by-payload'],
    ]);
  });

  it('undoes a forward effect that came first, and replays (never refuses) a late retry of that forward call', () => {
    const { sim, call } = setup();
    const charge = call('payment', 'charge', 'ch-k', 'o-1', { payload: { amount: 30 } });
    const refund = call('payment', 'refund', 're-k', 'o-1', { compensatesKey: 'ch-k' });
    const lateRetry = call('payment', 'charge', 'ch-k', 'o-1', { payload: { amount: 30 } });

    expect(refund.body).toMatchObject({
      result: { chargeId: 'ch-000001', amount: 30, originalEffectId: 'eff-000001' },
    });
    expect((refund.body as { result: Record<string, unknown> }).result).not.toHaveProperty('noop');
    expect(lateRetry.status).toBe(200);
    expect(lateRetry.headers).toEqual({ 'Idempotent-Replayed': 'true' });
    expect(lateRetry.body).toEqual(charge.body);
    expect(sim.ledger().map((e) => e.operation)).toEqual(['charge', 'refund']);
  });

  it('records no tombstone when the undo itself was not applied (injected 503 or 422)', () => {
    const { sim, call } = setup();
    sim.setFaults('shipping', { ...sim.faults().shipping, permanentFailOperations: ['cancel'] });
    expect(call('shipping', 'cancel', 'cx-k', 'o-1', { compensatesKey: 'cr-k' }).status).toBe(422);

    expect(call('shipping', 'create', 'cr-k', 'o-1').status).toBe(200);
    expect(sim.ledger().map((e) => e.operation)).toEqual(['create']);
  });

  it('forgets tombstones with the ledger', () => {
    const { sim, call } = setup();
    call('payment', 'refund', 're-k', 'o-1', { compensatesKey: 'ch-k' });
    sim.resetLedger();
    expect(call('payment', 'charge', 'ch-k', 'o-1').status).toBe(200);
  });

  it('cannot tombstone a forward call when the undo does not name its key (older callers)', () => {
    const { sim, call } = setup();
    const refund = call('payment', 'refund', 're-k', 'o-1');
    expect(refund.body).toMatchObject({ result: { originalEffectId: null, noop: true } });
    expect(sim.ledger()[0]).not.toHaveProperty('compensates');
    expect(call('payment', 'charge', 'ch-k', 'o-1').status).toBe(200);
  });

  it.each<[string, CallOptions, string]>([
    [
      'an empty Compensates-Idempotency-Key',
      { compensatesKey: '' },
      'Compensates-Idempotency-Key is empty; send the idempotency key of the forward call this undo compensates, or omit the header',
    ],
    [
      'an overlong Compensates-Idempotency-Key',
      { compensatesKey: 'k'.repeat(256) },
      'Compensates-Idempotency-Key is 256 characters; use at most 255',
    ],
    [
      'an overlong payload.originalIdempotencyKey',
      { payload: { originalIdempotencyKey: 'k'.repeat(256) } },
      'payload.originalIdempotencyKey is 256 characters; use at most 255',
    ],
  ])('answers 400 to %s, recording nothing', (_what, options, error) => {
    const { sim, call } = setup();
    const answer = call('payment', 'refund', 're-k', 'o-1', options);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error });
    expect(sim.ledger()).toEqual([]);
  });

  it('answers 400 to a forward call that claims to compensate something', () => {
    const { sim, call } = setup();
    const answer = call('payment', 'charge', 'ch-k', 'o-1', { compensatesKey: 'other' });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error:
        'Compensates-Idempotency-Key was sent on payment.charge, which is a forward operation; send it only on payment.refund',
    });
    expect(sim.ledger()).toEqual([]);
  });
});

/** Undos followed, later in the ledger, by a forward effect of the same order and service: the undo was overtaken. */
function overtaken(effects: Effect[]): Effect[] {
  return effects.filter(
    (undo, i) =>
      undo.operation === 'refund' &&
      effects.slice(i + 1).some((e) => e.operation === 'charge' && e.orderId === undo.orderId),
  );
}

describe('RemoteSim under shuffled forward and undo calls', () => {
  it('never applies a forward effect after its undo, and at most one effect per (order, operation)', () => {
    const random = seededRandom(7);
    const { sim, call } = setup();
    // Each order's charge is retried up to 3 times and its refund once or twice, in a shuffled order.
    const calls: Array<() => void> = [];
    for (let n = 0; n < 200; n += 1) {
      const orderId = `o-${n}`;
      const forward = `${orderId}/charge/forward`;
      const tries = 1 + Math.floor(random.next() * 3);
      for (let t = 0; t < tries; t += 1)
        calls.push(() => call('payment', 'charge', forward, orderId, { payload: { amount: 10 } }));
      const undos = 1 + Math.floor(random.next() * 2);
      for (let u = 0; u < undos; u += 1)
        calls.push(() =>
          call('payment', 'refund', `${orderId}/charge/compensate`, orderId, { compensatesKey: forward }),
        );
    }
    for (let i = calls.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random.next() * (i + 1));
      [calls[i], calls[j]] = [calls[j] as () => void, calls[i] as () => void];
    }
    for (const run of calls) run();

    const effects = sim.ledger();
    const perOrderAndOperation = new Map<string, number>();
    for (const e of effects)
      perOrderAndOperation.set(
        `${e.orderId} ${e.operation}`,
        (perOrderAndOperation.get(`${e.orderId} ${e.operation}`) ?? 0) + 1,
      );
    expect([...perOrderAndOperation.values()].every((count) => count === 1)).toBe(true);
    expect(overtaken(effects).map((e) => `${e.orderId}: ${e.effectId}`)).toEqual([]);
    // Both interleavings occurred, so the check above was exercised on each.
    const refunds = effects.filter((e) => e.operation === 'refund');
    expect(refunds.filter((e) => e.result['noop'] === true).length).toBeGreaterThan(10);
    expect(refunds.filter((e) => e.result['noop'] === undefined).length).toBeGreaterThan(10);
  });
});
