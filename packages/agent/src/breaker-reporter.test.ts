import { pino } from 'pino';
import type { BreakerStateDocument } from '@sas/contracts';
import { BreakerReporter, type BreakerReporterOptions } from './breaker-reporter';
import type { BreakerSnapshot, BreakerStateListener, Breakers } from './breakers';
import { CircuitBreakers } from './circuit-breakers';
import { captureLogger } from './test-support/capture-logger';
import { VirtualTime } from './test-support/virtual-time';

/** Breakers whose state the test sets, announcing each change as opossum would. */
class FakeBreakers implements Pick<Breakers, 'state' | 'onStateChange'> {
  private snapshot: BreakerSnapshot = { state: 'closed', retryAt: null };
  private readonly listeners = new Set<BreakerStateListener>();

  set(service: string, snapshot: BreakerSnapshot): void {
    this.snapshot = snapshot;
    for (const l of this.listeners) l(service, snapshot);
  }

  state(): BreakerSnapshot {
    return this.snapshot;
  }

  onStateChange(listener: BreakerStateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

describe('BreakerReporter', () => {
  const interval = 5_000;
  let time: VirtualTime;
  let docs: BreakerStateDocument[];
  let failNext: number;
  const sink = {
    report: (doc: BreakerStateDocument): Promise<void> => {
      if (failNext > 0) {
        failNext -= 1;
        return Promise.reject(new Error('connection <monitor> to 127.0.0.1:27017 closed'));
      }
      docs.push(doc);
      return Promise.resolve();
    },
  };

  const silent = pino({ level: 'silent' });

  /** A reporter for the payment agent on virtual time, writing to `sink`; `overrides` vary one part. */
  function reporterWith(overrides: Partial<BreakerReporterOptions> = {}): BreakerReporter {
    return new BreakerReporter({
      agent: 'payment',
      instanceId: 'a',
      clock: time,
      sleep: time.sleep,
      sink,
      breakers: new FakeBreakers(),
      intervalMs: interval,
      logger: silent,
      ...overrides,
    });
  }

  beforeEach(() => {
    time = new VirtualTime();
    docs = [];
    failNext = 0;
  });

  it('reports at start and on every heartbeat, with a deleteTime three heartbeats ahead', async () => {
    const reporter = reporterWith({ instanceId: 'agent-payment-a' });
    const start = time.now();

    reporter.start();
    await time.advance(2 * interval);
    await reporter.close();

    expect(docs.map((d) => d.updatedAt.getTime())).toEqual([start, start + interval, start + 2 * interval]);
    expect(docs[0]).toEqual({
      _id: 'payment/agent-payment-a',
      agent: 'payment',
      instanceId: 'agent-payment-a',
      state: 'closed',
      retryAt: null,
      updatedAt: new Date(start),
      deleteTime: new Date(start + 3 * interval),
    });
  });

  it('reports a state change at once, with retryAt while open', async () => {
    const breakers = new FakeBreakers();
    const reporter = reporterWith({ breakers });
    reporter.start();
    await time.advance(1_000);

    breakers.set('payment', { state: 'open', retryAt: time.now() + 3_000 });
    breakers.set('inventory', { state: 'open', retryAt: time.now() + 3_000 }); // not this agent's service
    await time.advance(0);

    expect(docs.map((d) => d.state)).toEqual(['closed', 'open']);
    expect(docs[1]?.retryAt).toEqual(new Date(time.now() + 3_000));
    await reporter.close();
  });

  it('logs a failing write and keeps reporting', async () => {
    const { logger, lines } = captureLogger();
    failNext = 1;
    const reporter = reporterWith({ logger });

    reporter.start();
    await time.advance(interval);
    await reporter.close();

    expect(reporter.failedReports()).toBe(1);
    expect(docs).toHaveLength(1);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        err: 'connection <monitor> to 127.0.0.1:27017 closed',
        msg: expect.stringContaining('could not report breaker state') as unknown,
      }),
    );
  });

  it('stops reporting once closed and leaves no timer behind', async () => {
    const breakers = new FakeBreakers();
    const reporter = reporterWith({ breakers });
    reporter.start();
    await time.advance(0);

    await reporter.close();
    breakers.set('payment', { state: 'open', retryAt: null });
    await time.advance(10 * interval);

    expect(docs).toHaveLength(1);
    expect(time.pending()).toBe(0);
  });

  it('writes what a real breaker does when it opens', async () => {
    const breakers = new CircuitBreakers({
      errorThresholdPercentage: 50,
      volumeThreshold: 1,
      resetTimeoutMs: 30_000,
      rollingWindowMs: 10_000,
      clock: time,
      logger: silent,
    });
    const reporter = reporterWith({ breakers });
    try {
      reporter.start();
      await time.advance(0);

      await expect(breakers.call('payment', () => Promise.reject(new Error('ECONNRESET')))).rejects.toThrow(
        'ECONNRESET',
      );
      await time.advance(0);

      expect(docs.map((d) => d.state)).toEqual(['closed', 'open']);
      expect(docs[1]?.retryAt).toEqual(new Date(time.now() + 30_000));
    } finally {
      await reporter.close();
      breakers.close();
    }
  });
});
