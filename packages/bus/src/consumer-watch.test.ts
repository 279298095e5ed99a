import { EventEmitter } from 'node:events';
import type { Queue, Worker } from 'bullmq';
import { StallBoard, createLogger } from '@sas/runtime';
import { ManualClock } from '@sas/testkit';
import { watchConsumer } from './consumer-watch';

/** A worker that takes jobs only when the test emits 'active', with `busy` of its 8 slots in use. */
function fakeWorker(): { worker: Worker; emitter: EventEmitter; setBusy: (n: number) => void } {
  const emitter = new EventEmitter();
  let busy = 0;
  const worker = Object.assign(emitter, {
    concurrency: 8,
    isRunning: () => true,
    lockManager: { getActiveJobCount: () => busy },
  });
  return { worker: worker as unknown as Worker, emitter, setBusy: (n) => (busy = n) };
}

describe('watchConsumer', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ service: 'bus', instanceId: 'bus-1', destination: { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) } });
  let clock: ManualClock;
  let board: StallBoard;
  let waiting: number;
  const queue = { getWaitingCount: () => Promise.resolve(waiting) } as unknown as Queue;

  beforeEach(() => {
    jest.useFakeTimers();
    lines.length = 0;
    waiting = 5;
    clock = new ManualClock(Date.UTC(2030, 0, 1));
    board = new StallBoard(logger, clock);
  });
  afterEach(() => jest.useRealTimers());

  /** Moves the clock and the watch's timer by `ms`, a second at a time, letting each look finish. */
  async function pass(ms: number): Promise<void> {
    for (let t = 0; t < ms; t += 1_000) {
      clock.t += 1_000;
      jest.advanceTimersByTime(1_000);
      for (let i = 0; i < 5; i++) await Promise.resolve();
    }
  }

  function start(worker: Worker, restart: () => void): void {
    const blocking = { disconnect: restart };
    watchConsumer(worker, { queueName: 'agent.payment.requests', queue, board, clock, logger, boundMs: 9_000, blocking: () => [blocking as never] });
  }

  it('reports a consumer that takes nothing while work waits, and drops its blocking connection once per bound', async () => {
    const { worker } = fakeWorker();
    let restarts = 0;
    start(worker, () => void restarts++);

    await pass(9_000);
    expect(restarts).toBe(0);
    expect(board.active()).toEqual([]);
    await pass(2_000);
    expect(restarts).toBe(1);
    expect(board.active()).toEqual(['consumer:agent.payment.requests']);
    expect(lines.find((l) => l['msg'] === 'consumer stuck: restarting its wait for jobs')).toMatchObject({ level: 50, queue: 'agent.payment.requests', waiting: 5 });
    await pass(9_000);
    expect(restarts).toBe(1);
    await pass(2_000);
    expect(restarts).toBe(2);
  });

  it('clears the stall once the consumer takes a job again', async () => {
    const { worker, emitter } = fakeWorker();
    start(worker, () => undefined);
    await pass(11_000);
    expect(board.active()).toEqual(['consumer:agent.payment.requests']);

    emitter.emit('active');
    await pass(1_000);
    expect(board.active()).toEqual([]);
    expect(lines.some((l) => String(l['msg']).startsWith('consumer:agent.payment.requests: heard again after a stall'))).toBe(true);
  });

  it('leaves alone a consumer that keeps taking jobs, one whose slots are all busy, and one with nothing to do', async () => {
    const taking = fakeWorker();
    const full = fakeWorker();
    full.setBusy(8);
    let restarts = 0;
    start(taking.worker, () => void restarts++);
    start(full.worker, () => void restarts++);
    for (let s = 0; s < 30; s++) {
      taking.emitter.emit('active');
      await pass(1_000);
    }
    waiting = 0;
    const idle = fakeWorker();
    start(idle.worker, () => void restarts++);
    await pass(30_000);
    expect(restarts).toBe(0);
    expect(board.active()).toEqual([]);
  });

  it('does not call a consumer stuck for the time Redis did not answer the count', async () => {
    const { worker } = fakeWorker();
    let restarts = 0;
    let answering = true;
    const patchy = { getWaitingCount: () => (answering ? Promise.resolve(waiting) : new Promise<number>(() => undefined)) } as unknown as Queue;
    watchConsumer(worker, { queueName: 'q', queue: patchy, board, clock, logger, boundMs: 9_000, blocking: () => [{ disconnect: () => void restarts++ } as never] });
    await pass(2_000);
    answering = false;
    await pass(20_000);
    answering = true;
    await pass(8_000);
    expect(restarts).toBe(0);
    await pass(3_000);
    expect(restarts).toBe(1);
  });

  it('stops watching when the worker closes', async () => {
    const { worker, emitter } = fakeWorker();
    let restarts = 0;
    start(worker, () => void restarts++);
    emitter.emit('closing');
    await pass(30_000);
    expect(restarts).toBe(0);
  });
});
