import { pino } from 'pino';
import type { BreakerSnapshot } from './breakers';
import { CircuitBreakers } from './circuit-breakers';
import { workerFixture } from './test-support/worker-fixture';
import { VirtualTime } from './test-support/virtual-time';

/** Resolves when `predicate` holds for a state change of `payment`, or fails after `timeoutMs`. */
function stateChange(
  breakers: CircuitBreakers,
  predicate: (s: BreakerSnapshot) => boolean,
  timeoutMs = 5_000,
): Promise<BreakerSnapshot> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`breaker did not reach the expected state within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = breakers.onStateChange((service, snapshot) => {
      if (service !== 'payment' || !predicate(snapshot)) return;
      clearTimeout(timer);
      off();
      resolve(snapshot);
    });
  });
}

describe('AgentWorker with a real opossum circuit breaker', () => {
  let time: VirtualTime;
  let breakers: CircuitBreakers;
  const open = (resetTimeoutMs: number): CircuitBreakers =>
    new CircuitBreakers({
      errorThresholdPercentage: 50,
      volumeThreshold: 3,
      resetTimeoutMs,
      rollingWindowMs: 60_000,
      minRetryAfterMs: 250,
      clock: time,
      logger: pino({ level: 'silent' }),
    });

  beforeEach(() => {
    time = new VirtualTime();
  });
  afterEach(() => breakers.close());

  describe('when the remote keeps failing transiently', () => {
    it('opens after the volume threshold and parks later requests without calling the remote', async () => {
      breakers = open(60_000);
      const f = workerFixture({ time, breakers, script: [{ kind: 'transient' }] });
      const single = { maxAttempts: 1, initialBackoffMs: 100, maxBackoffMs: 1000, multiplier: 2, jitter: 0 };

      const first = await time.run(f.worker.handle(f.request({ retry: single })));
      const second = await time.run(f.worker.handle(f.request({ retry: single })));
      const third = await time.run(f.worker.handle(f.request({ retry: single })));
      const later = [];
      for (let i = 0; i < 10; i += 1)
        later.push(await time.run(f.worker.handle(f.request({ retry: single }))));

      expect(first).toMatchObject({ kind: 'replied-error', errorKind: 'transient' });
      expect(second).toMatchObject({ kind: 'replied-error', errorKind: 'transient' });
      // The third fault opened the breaker: parked takes precedence, the scheduler holds the step.
      expect(third).toEqual({ kind: 'parked', retryAfterMs: 60_000, calls: 1 });
      expect(later.every((o) => o.kind === 'parked' && o.calls === 0)).toBe(true);
      expect(f.calls).toHaveLength(3);
      expect(f.replies.at(-1)?.reply).toMatchObject({
        outcome: 'parked',
        retryAfterMs: 60_000,
        reason: 'circuit open for payment',
      });
      expect(breakers.state('payment')).toEqual({ state: 'open', retryAt: time.now() + 60_000 });
    });

    it('parks a request whose own retries opened the breaker instead of retrying into it', async () => {
      breakers = open(60_000);
      const f = workerFixture({ time, breakers, script: [{ kind: 'transient' }] });

      const outcome = await time.run(
        f.worker.handle(
          f.request({
            retry: { maxAttempts: 10, initialBackoffMs: 100, maxBackoffMs: 1000, multiplier: 2, jitter: 0 },
          }),
        ),
      );

      expect(outcome).toMatchObject({ kind: 'parked', calls: 3 });
      expect(f.calls).toHaveLength(3);
    });

    it('tells parked requests how long is left until the trial, measured on the injected clock', async () => {
      breakers = open(60_000);
      const f = workerFixture({ time, breakers, script: [{ kind: 'transient' }] });
      const single = { maxAttempts: 1, initialBackoffMs: 0, maxBackoffMs: 0, multiplier: 1, jitter: 0 };
      for (let i = 0; i < 3; i += 1) await time.run(f.worker.handle(f.request({ retry: single })));

      await time.advance(45_000);
      const outcome = await time.run(f.worker.handle(f.request({ completeBy: time.now() + 10_000 })));

      expect(outcome).toEqual({ kind: 'parked', retryAfterMs: 15_000, calls: 0 });
    });
  });

  describe('when the remote rejects requests for good', () => {
    it('keeps the breaker closed: a permanent fault proves the remote is up', async () => {
      breakers = open(60_000);
      const f = workerFixture({ time, breakers, script: [{ kind: 'permanent' }] });

      for (let i = 0; i < 10; i += 1) await time.run(f.worker.handle(f.request()));

      expect(f.calls).toHaveLength(10);
      expect(f.replies.every((r) => r.reply.outcome === 'error' && r.reply.errorKind === 'permanent')).toBe(
        true,
      );
      expect(breakers.state('payment').state).toBe('closed');
    });
  });

  describe('after the reset timeout', () => {
    it('lets one trial call through, parks others meanwhile, and closes when the trial succeeds', async () => {
      breakers = open(50);
      let answerTrial: (r: { charged: number }) => void = () => undefined;
      const trial = new Promise<{ charged: number }>((resolve) => (answerTrial = resolve));
      const f = workerFixture({
        time,
        breakers,
        script: [
          { kind: 'transient' },
          { kind: 'transient' },
          { kind: 'transient' },
          { kind: 'gate', gate: trial },
          { kind: 'ok' },
        ],
      });
      const single = { maxAttempts: 1, initialBackoffMs: 0, maxBackoffMs: 0, multiplier: 1, jitter: 0 };
      const halfOpen = stateChange(breakers, (s) => s.state === 'halfOpen');
      for (let i = 0; i < 3; i += 1) await time.run(f.worker.handle(f.request({ retry: single })));
      expect(breakers.state('payment').state).toBe('open');

      await halfOpen; // opossum's own timer (50 ms real time)
      const trialRequest = f.worker.handle(f.request());
      const whileTrial = await time.run(f.worker.handle(f.request()));
      const closed = stateChange(breakers, (s) => s.state === 'closed');
      answerTrial({ charged: 42 });
      const trialOutcome = await time.run(trialRequest);
      await closed;
      const after = await time.run(f.worker.handle(f.request()));

      expect(whileTrial).toEqual({ kind: 'parked', retryAfterMs: 250, calls: 0 });
      expect(trialOutcome).toEqual({ kind: 'replied-ok', calls: 1 });
      expect(after).toEqual({ kind: 'replied-ok', calls: 1 });
      expect(f.calls).toHaveLength(5);
      expect(breakers.state('payment').state).toBe('closed');
    });

    it('opens again when the trial fails, and parks the trial’s request', async () => {
      breakers = open(50);
      const f = workerFixture({ time, breakers, script: [{ kind: 'transient' }] });
      const single = { maxAttempts: 1, initialBackoffMs: 0, maxBackoffMs: 0, multiplier: 1, jitter: 0 };
      const halfOpen = stateChange(breakers, (s) => s.state === 'halfOpen');
      for (let i = 0; i < 3; i += 1) await time.run(f.worker.handle(f.request({ retry: single })));
      await halfOpen;

      const outcome = await time.run(f.worker.handle(f.request()));

      expect(outcome).toEqual({ kind: 'parked', retryAfterMs: 250, calls: 1 });
      expect(breakers.state('payment').state).toBe('open');
      expect(f.calls).toHaveLength(4);
    });
  });
});
