// The benchmark's closed loop against a stand-in client: it must keep exactly N orders in
// flight, replace an order only on its first final status, and ignore every other event, or the
// throughput and latency figures count the wrong orders.

interface StatusEvent { schemaVersion: 1; orderId?: string; status: string; at: number }
interface Completion { orderId: string; submittedAt: number; doneAt: number; status: string }
interface ClosedLoopInstance {
  start(): Promise<void>;
  inFlightOrders(): string[];
  completions: Completion[];
  failure: Error | undefined;
  check(stallMs: number, logHint: string): void;
  stop(options: { stallMs: number; logHint: string; signal: AbortSignal }): Promise<void>;
}

interface ClosedLoopLib {
  ClosedLoop: new (options: { sas: unknown; idPrefix: string; inFlight: number }) => ClosedLoopInstance;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { ClosedLoop }: ClosedLoopLib = require('../../bench/lib/closed-loop');

/** Records submits and hands the loop's listener to the test, as SasClient.onStatus would. */
class FakeClient {
  submitted: string[] = [];
  listener: ((event: StatusEvent) => void) | undefined;
  unsubscribed = false;
  failNext = false;
  async submit(order: { orderId: string }): Promise<void> {
    if (this.failNext) throw new Error('Redis is gone');
    this.submitted.push(order.orderId);
  }
  async onStatus(listener: (event: StatusEvent) => void): Promise<() => void> {
    this.listener = listener;
    return () => (this.unsubscribed = true);
  }
  emit(orderId: string | undefined, status: string): void {
    this.listener?.({ schemaVersion: 1, orderId, status, at: Date.now() });
  }
}

describe('bench ClosedLoop', () => {
  it('keeps N orders in flight: a new one per first final status, none for other events', async () => {
    const sas = new FakeClient();
    const loop = new ClosedLoop({ sas, idPrefix: 'run', inFlight: 3 });
    await loop.start();
    expect(sas.submitted).toEqual(['run-1', 'run-2', 'run-3']);

    sas.emit('run-1', 'Processing'); // not final
    sas.emit('run-1', 'StepCompleted');
    sas.emit('other-run-1', 'Processed'); // another loop's order
    sas.emit(undefined, 'Rejected'); // unreadable order
    expect(sas.submitted).toHaveLength(3);

    sas.emit('run-2', 'Processed');
    sas.emit('run-2', 'Processed'); // a redelivered final status: counted once
    sas.emit('run-3', 'Compensated');
    expect(sas.submitted).toEqual(['run-1', 'run-2', 'run-3', 'run-4', 'run-5']);
    expect(loop.inFlightOrders().sort()).toEqual(['run-1', 'run-4', 'run-5']);
    expect(loop.completions.map((c) => [c.orderId, c.status])).toEqual([['run-2', 'Processed'], ['run-3', 'Compensated']]);
  });

  it('stops submitting on stop, waits for the orders in flight, then stops listening', async () => {
    const sas = new FakeClient();
    const loop = new ClosedLoop({ sas, idPrefix: 'run', inFlight: 2 });
    await loop.start();
    const stopped = loop.stop({ stallMs: 10_000, logHint: 'the logs', signal: new AbortController().signal });
    sas.emit('run-1', 'Processed');
    expect(sas.unsubscribed).toBe(false);
    sas.emit('run-2', 'Processed');
    await stopped;
    expect(sas.submitted).toEqual(['run-1', 'run-2']);
    expect(sas.unsubscribed).toBe(true);
  });

  it('surfaces a failed submit instead of running with fewer orders in flight', async () => {
    const sas = new FakeClient();
    const loop = new ClosedLoop({ sas, idPrefix: 'run', inFlight: 1 });
    await loop.start();
    sas.failNext = true;
    sas.emit('run-1', 'Processed');
    await new Promise((resolve) => setImmediate(resolve)); // the rejected submit settles
    expect(() => loop.check(10_000, 'the logs')).toThrow(/Submitting run-2 failed: Redis is gone/);
  });
});
