import type { RedisConnection } from '@sas/client';
import { StallBoard, createLogger } from '@sas/runtime';
import { ManualClock } from '@sas/testkit';
import { RedisHeartbeat } from './redis-heartbeat';

/** A connection whose PINGs are answered (or not) as the test says, and whose socket drops are counted. */
function fakeConnection(answers: () => boolean): { connection: RedisConnection; drops: () => number } {
  let drops = 0;
  const connection = {
    status: 'ready',
    ping: () => (answers() ? Promise.resolve('PONG') : new Promise<string>(() => undefined)),
    stream: { destroy: () => void drops++ },
  };
  return { connection: connection as unknown as RedisConnection, drops: () => drops };
}

describe('RedisHeartbeat', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ service: 'bus', instanceId: 'bus-1', destination: { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) } });
  let clock: ManualClock;
  let board: StallBoard;

  beforeEach(() => {
    jest.useFakeTimers();
    lines.length = 0;
    clock = new ManualClock(Date.UTC(2030, 0, 1));
    board = new StallBoard(logger, clock);
  });
  afterEach(() => jest.useRealTimers());

  /** One interval of the heartbeat's timer, with the clock moved by `elapsedMs` (the interval, or more when the process was not running). */
  async function tick(elapsedMs = 1_000): Promise<void> {
    clock.t += elapsedMs;
    jest.advanceTimersByTime(1_000);
    await Promise.resolve();
    await Promise.resolve();
  }

  it('reports a stall and drops the socket when PINGs go unanswered past the bound', async () => {
    const { connection, drops } = fakeConnection(() => false);
    const heartbeat = new RedisHeartbeat({ connection, key: 'redis:q', what: "consumer of queue 'q'", fields: { queue: 'q' }, board, clock, stallMs: 3_000, intervalMs: 1_000 });
    for (let i = 0; i < 4; i++) await tick();
    expect(heartbeat.isStalled()).toBe(true);
    expect(drops()).toBe(1);
    expect(lines.find((l) => l['stall'] === 'redis:q')?.['msg']).toMatch(/^consumer of queue 'q' has not heard from Redis for 4000 ms \(bound 3000 ms\)/);
    heartbeat.stop();
  });

  it('does not take time this process spent not running for silence of Redis', async () => {
    let answering = true;
    const { connection, drops } = fakeConnection(() => answering);
    const heartbeat = new RedisHeartbeat({ connection, key: 'redis:q', what: "consumer of queue 'q'", fields: { queue: 'q' }, board, clock, stallMs: 3_000, intervalMs: 1_000 });
    await tick();
    // The process was starved for 5 s: its one late tick comes before the PING's answer is read.
    answering = false;
    await tick(5_000);
    expect(heartbeat.isStalled()).toBe(false);
    expect(drops()).toBe(0);
    // Silence that goes on while the process does run is still a stall.
    for (let i = 0; i < 4; i++) await tick();
    expect(heartbeat.isStalled()).toBe(true);
    expect(drops()).toBe(1);
    heartbeat.stop();
  });
});
