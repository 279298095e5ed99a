import { AgentReply } from '@sas/contracts';
import { workerFixture } from './test-support/worker-fixture';

describe('AgentWorker', () => {
  describe('when the remote answers at once', () => {
    it('replies ok to the request’s replyTo with the result and the request’s identity', async () => {
      const f = workerFixture({ script: [{ kind: 'ok', result: { charged: 42 } }] });
      const request = f.request();

      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toEqual({ kind: 'replied-ok', calls: 1 });
      expect(f.replies).toHaveLength(1);
      const sent = f.replies[0];
      expect(sent?.to).toBe('scheduler.replies');
      expect(AgentReply.safeParse(sent?.reply).success).toBe(true);
      expect(sent?.reply).toEqual({
        schemaVersion: 1,
        outcome: 'ok',
        result: { charged: 42, effectId: 'eff-1' },
        processId: request.processId,
        step: 'charge-card',
        stepIndex: 1,
        mode: 'forward',
        attempt: 3,
        agent: 'payment',
        agentInstance: 'agent-payment-test-1',
        at: f.time.now(),
      });
      expect(f.calls[0]?.call).toEqual({
        agent: 'payment',
        operation: 'charge',
        processId: request.processId,
        orderId: request.orderId,
        step: 'charge-card',
        mode: 'forward',
        payload: { amount: 42 },
        input: { amount: 42 },
        results: {},
        idempotencyKey: request.idempotencyKey,
        attempt: 3,
        tryNumber: 1,
        completeBy: request.completeBy,
        signal: expect.any(AbortSignal) as unknown,
        logger: expect.anything() as unknown,
      });
    });

    it('logs every line of the request with processId, orderId, step and attempt', async () => {
      const f = workerFixture({ script: [{ kind: 'transient' }, { kind: 'ok' }] });
      const request = f.request();

      await f.time.run(f.worker.handle(request));

      const requestLines = f.lines.filter((l) => l.msg !== undefined);
      expect(requestLines.length).toBeGreaterThanOrEqual(3);
      for (const line of requestLines) {
        expect(line).toMatchObject({
          processId: request.processId,
          orderId: request.orderId,
          step: request.step,
          attempt: request.attempt,
        });
      }
    });
  });

  describe('when the remote fails transiently and then succeeds', () => {
    it('retries with the same idempotency key, waiting as the policy says between tries', async () => {
      const f = workerFixture({ script: [{ kind: 'transient' }, { kind: 'transient' }, { kind: 'ok' }] });
      const request = f.request();

      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toEqual({ kind: 'replied-ok', calls: 3 });
      expect(f.calls.map((c) => c.call.idempotencyKey)).toEqual([
        request.idempotencyKey,
        request.idempotencyKey,
        request.idempotencyKey,
      ]);
      const gaps = f.calls.slice(1).map((c, i) => c.at - (f.calls[i]?.at ?? 0));
      expect(gaps).toEqual([100, 200]); // initialBackoffMs, then × multiplier (random 0: no jitter taken)
      expect(f.replies.map((r) => r.reply.outcome)).toEqual(['ok']);
    });

    it('shortens the waits by the jitter drawn from the injected randomness', async () => {
      const f = workerFixture({
        script: [{ kind: 'transient' }, { kind: 'transient' }, { kind: 'ok' }],
        random: () => 0.5,
      });

      await f.time.run(f.worker.handle(f.request()));

      const gaps = f.calls.slice(1).map((c, i) => c.at - (f.calls[i]?.at ?? 0));
      expect(gaps).toEqual([75, 150]); // jitter 0.5 × random 0.5 takes a quarter off
    });

    it('waits at least as long as the remote’s Retry-After hint', async () => {
      const f = workerFixture({ script: [{ kind: 'transient', retryAfterMs: 700 }, { kind: 'ok' }] });

      await f.time.run(f.worker.handle(f.request()));

      expect((f.calls[1]?.at ?? 0) - (f.calls[0]?.at ?? 0)).toBe(700);
    });

    it('uses the agent’s default policy when the request carries none', async () => {
      const f = workerFixture({ script: [{ kind: 'transient' }] });
      const request = f.request();
      delete request.retry;

      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toMatchObject({ kind: 'replied-error', errorKind: 'transient', calls: 2 });
    });
  });

  describe('when every try fails transiently', () => {
    it('replies a transient error once maxAttempts calls have failed', async () => {
      const f = workerFixture({ script: [{ kind: 'transient' }] });

      const outcome = await f.time.run(f.worker.handle(f.request()));

      expect(outcome).toMatchObject({ kind: 'replied-error', errorKind: 'transient', calls: 4 });
      expect(f.calls).toHaveLength(4);
      expect(f.replies).toHaveLength(1);
      expect(f.replies[0]?.reply).toMatchObject({
        outcome: 'error',
        errorKind: 'transient',
        message: 'payment/charge failed 4 times; last error: remote answered 503: busy',
      });
    });
  });

  describe('when the remote rejects the request for good', () => {
    it('replies a permanent error at once without retrying', async () => {
      const f = workerFixture({ script: [{ kind: 'permanent' }, { kind: 'ok' }] });

      const outcome = await f.time.run(f.worker.handle(f.request()));

      expect(outcome).toMatchObject({ kind: 'replied-error', errorKind: 'permanent', calls: 1 });
      expect(f.calls).toHaveLength(1);
      expect(f.replies[0]?.reply).toMatchObject({
        outcome: 'error',
        errorKind: 'permanent',
        message: 'remote answered 422: card declined',
      });
    });
  });

  describe('when the request undoes a forward step', () => {
    it('names the forward call’s idempotency key on every try, so the remote can refuse that call after its undo', async () => {
      const f = workerFixture({ script: [{ kind: 'transient' }, { kind: 'ok' }] });
      const request = f.request({
        mode: 'compensate',
        operation: 'refund',
        idempotencyKey: 'order-1/charge-card/compensate',
        compensates: { idempotencyKey: 'order-1/charge-card/forward', result: null },
      });

      await f.time.run(f.worker.handle(request));

      expect(f.calls.map((c) => c.call)).toEqual([
        expect.objectContaining({
          agent: 'payment',
          operation: 'refund',
          mode: 'compensate',
          orderId: request.orderId,
          payload: { amount: 42 },
          idempotencyKey: 'order-1/charge-card/compensate',
          compensates: { idempotencyKey: 'order-1/charge-card/forward', result: null },
        }),
        expect.objectContaining({
          idempotencyKey: 'order-1/charge-card/compensate',
          compensates: { idempotencyKey: 'order-1/charge-card/forward', result: null },
        }),
      ]);
    });

    it('names nothing when the request does not say what it compensates (older schedulers)', async () => {
      const f = workerFixture({ script: [{ kind: 'ok' }] });

      await f.time.run(f.worker.handle(f.request({ mode: 'compensate', operation: 'refund' })));

      expect(f.calls[0]?.call).not.toHaveProperty('compensates');
    });
  });

  describe('when the request reached the wrong agent', () => {
    it('replies a permanent error naming both agents and calls nothing', async () => {
      const f = workerFixture({ script: [{ kind: 'ok' }] });

      const outcome = await f.time.run(f.worker.handle(f.request({ agent: 'shipping' })));

      expect(outcome).toMatchObject({ kind: 'replied-error', errorKind: 'permanent', calls: 0 });
      expect(f.calls).toHaveLength(0);
      expect(f.replies[0]?.reply).toMatchObject({
        message: expect.stringContaining("request for agent 'shipping' reached agent 'payment'") as unknown,
      });
    });
  });

  describe('complete-by', () => {
    it('does nothing and says nothing when the request arrives after its complete-by time', async () => {
      const f = workerFixture({ script: [{ kind: 'ok' }] });
      const request = f.request({ completeBy: f.time.now() });

      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toEqual({ kind: 'expired-before-start' });
      expect(f.calls).toHaveLength(0);
      expect(f.replies).toHaveLength(0);
      expect(f.lines).toContainEqual(expect.objectContaining({ msg: 'expired before start', level: 30 }));
    });

    it('aborts a hanging call at complete-by and stops without a reply', async () => {
      const f = workerFixture({ script: [{ kind: 'hang' }] });
      const request = f.request({ completeBy: f.time.now() + 5_000 });

      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toMatchObject({ kind: 'expired-silent', calls: 1 });
      expect(f.calls[0]?.signal.aborted).toBe(true);
      expect(f.time.now()).toBe(request.completeBy);
      expect(f.replies).toHaveLength(0);
      expect(f.lines).toContainEqual(
        expect.objectContaining({ msg: 'complete-by passed; stopping without reply' }),
      );
    });

    it('sends no reply for a result that arrives after complete-by, even if the remote ignored the abort', async () => {
      let answer: (result: { charged: number }) => void = () => undefined;
      const gate = new Promise<{ charged: number }>((resolve) => (answer = resolve));
      const f = workerFixture({ script: [{ kind: 'gate', gate }] });
      const request = f.request({ completeBy: f.time.now() + 5_000 });

      const handling = f.worker.handle(request);
      await f.time.advance(5_000);
      expect(f.calls[0]?.signal.aborted).toBe(true);
      answer({ charged: 42 });
      const outcome = await f.time.run(handling);

      expect(outcome).toMatchObject({ kind: 'expired-silent', calls: 1 });
      expect(f.replies).toHaveLength(0);
    });

    it('stops without a reply when the next retry could only start after complete-by', async () => {
      const f = workerFixture({ script: [{ kind: 'transient', retryAfterMs: 60_000 }, { kind: 'ok' }] });
      const request = f.request({ completeBy: f.time.now() + 5_000 });

      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toMatchObject({ kind: 'expired-silent', calls: 1 });
      expect(f.calls).toHaveLength(1);
      expect(f.replies).toHaveLength(0);
      expect(f.time.now()).toBeLessThan(request.completeBy);
    });

    it('leaves no timer behind once a request is done', async () => {
      const f = workerFixture({ script: [{ kind: 'transient' }, { kind: 'ok' }] });

      await f.time.run(f.worker.handle(f.request()));

      expect(f.time.pending()).toBe(0);
    });
  });

  describe('when the reply cannot be sent', () => {
    it('throws so the message is redelivered, and the redelivery replays the call under the same key', async () => {
      const f = workerFixture({ script: [{ kind: 'ok' }], failingReplies: 1 });
      const request = f.request();

      await expect(f.time.run(f.worker.handle(request))).rejects.toThrow(
        "Could not send the ok reply to 'scheduler.replies': Connection is closed.; the request will be redelivered",
      );
      const outcome = await f.time.run(f.worker.handle(request));

      expect(outcome).toEqual({ kind: 'replied-ok', calls: 1 });
      expect(f.calls.map((c) => c.call.idempotencyKey)).toEqual([
        request.idempotencyKey,
        request.idempotencyKey,
      ]);
      expect(f.replies).toHaveLength(1);
    });
  });

  it('counts outcomes for metrics', async () => {
    const f = workerFixture({ script: [{ kind: 'ok' }] });
    await f.time.run(f.worker.handle(f.request()));
    await f.time.run(f.worker.handle(f.request({ completeBy: 0 })));

    expect(f.worker.stats()).toMatchObject({
      requests_replied_ok: 1,
      requests_expired_before_start: 1,
      requests_parked: 0,
    });
  });
});
