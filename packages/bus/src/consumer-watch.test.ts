import { EventEmitter } from 'node:events';
import type { Queue, Worker } from 'bullmq';
import { StallBoard, createLogger } from '@sas/runtime';
import { ManualClock } from '@sas/testkit';
import { watchConsumer, type RestartableConsumer } from './consumer-watch';

/** A worker that takes a job only when the test emits 'active' on it, with `busy` of its 8 slots in use. */
class FakeWorker extends EventEmitter {
  readonly concurrency = 8;
  busy = 0;
  readonly lockManager = { getActiveJobCount: (): number => this.busy };
  isRunning(): boolean {
    return true;
  }
}

/** A consumer whose restarts replace its worker with a new fake one, as `Consumer.restartWorker` does. */
class FakeConsumer implements RestartableConsumer {
  readonly workers = [new FakeWorker()];
  get current(): FakeWorker {
    return this.workers[this.workers.length - 1]!;
  }
  get bullWorker(): Worker {
    return this.current as unknown as Worker;
  }
  restartWorker(): Worker {
    this.current.emit('closing');
    this.workers.push(new FakeWorker());
    return this.bullWorker;
  }
  get restarts(): number {
    return this.workers.length - 1;
  }
}

describe('watchConsumer', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ service: 'bus', instanceId: 'bus-1', destination: { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) } });
  let clock: ManualClock;
  let board: StallBoard;
  let waiting: number;
  let answering: boolean;
  const queue = { getWaitingCount: () => (answering ? Promise.resolve(waiting) : new Promise<number>(() => undefined)) } as unknown as Queue;

  beforeEach(() => {
    jest.useFakeTimers();
    lines.length = 0;
    waiting = 5;
    answering = true;
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

  function watch(consumer: FakeConsumer, queueName = 'agent.payment.requests'): void {
    watchConsumer(consumer, { queueName, queue, board, clock, logger, boundMs: 9_000 });
  }

  it('reports a consumer that takes nothing while work waits, and replaces its worker once per bound while that lasts', async () => {
    const consumer = new FakeConsumer();
    watch(consumer);

    await pass(9_000);
    expect(consumer.restarts).toBe(0);
    expect(board.active()).toEqual([]);
    await pass(2_000);
    expect(consumer.restarts).toBe(1);
    expect(board.active()).toEqual(['consumer:agent.payment.requests']);
    expect(lines.find((l) => l['msg'] === 'consumer stuck: replacing its worker')).toMatchObject({ level: 50, queue: 'agent.payment.requests', waiting: 5 });
    // The new worker gets the whole bound; the stall stays reported meanwhile.
    await pass(9_000);
    expect(consumer.restarts).toBe(1);
    expect(board.active()).toEqual(['consumer:agent.payment.requests']);
    await pass(2_000);
    expect(consumer.restarts).toBe(2);
  });

  it('clears the stall once the new worker takes a job', async () => {
    const consumer = new FakeConsumer();
    watch(consumer);
    await pass(11_000);
    expect(consumer.restarts).toBe(1);

    consumer.current.emit('active');
    await pass(1_000);
    expect(board.active()).toEqual([]);
    expect(lines.some((l) => String(l['msg']).startsWith('consumer:agent.payment.requests: heard again after a stall'))).toBe(true);
  });

  it('does not replace a worker that still holds jobs, and says why', async () => {
    const consumer = new FakeConsumer();
    consumer.current.busy = 2;
    watch(consumer);
    await pass(30_000);
    expect(consumer.restarts).toBe(0);
    expect(lines.find((l) => String(l['msg']).includes('it still holds 2 job(s), so it is replaced once they finish'))).toBeDefined();
    consumer.current.busy = 0;
    await pass(1_000);
    expect(consumer.restarts).toBe(1);
  });

  it('leaves alone a consumer that keeps taking jobs, one whose slots are all busy, and one with nothing to do', async () => {
    const taking = new FakeConsumer();
    const full = new FakeConsumer();
    full.current.busy = 8;
    watch(taking, 'a');
    watch(full, 'b');
    for (let s = 0; s < 30; s++) {
      taking.current.emit('active');
      await pass(1_000);
    }
    waiting = 0;
    const idle = new FakeConsumer();
    watch(idle, 'c');
    await pass(30_000);
    expect([taking.restarts, full.restarts, idle.restarts]).toEqual([0, 0, 0]);
    expect(board.active()).toEqual([]);
  });

  it('does not count the time Redis did not answer the count against the consumer', async () => {
    const consumer = new FakeConsumer();
    watch(consumer);
    await pass(2_000);
    answering = false;
    await pass(20_000);
    answering = true;
    await pass(8_000);
    expect(consumer.restarts).toBe(0);
    await pass(3_000);
    expect(consumer.restarts).toBe(1);
  });

  it('stops watching when the consumer closes its worker', async () => {
    const consumer = new FakeConsumer();
    watch(consumer);
    consumer.current.emit('closing');
    await pass(30_000);
    expect(consumer.restarts).toBe(0);
  });
});
