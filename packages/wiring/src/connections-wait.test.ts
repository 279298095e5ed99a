import { createLogger } from '@sas/runtime';
import { waitForConnections } from './connections-wait';
import type { StartingConnections } from './starting-service';

function capture(): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ service: 'submission', instanceId: 'submission-1', destination: { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) } });
  return { lines, logger };
}

const redisDown: StartingConnections = { ready: () => false, waitingFor: () => ["Redis at 127.0.0.1:6379 (the sender's connection is connecting)"] };

describe('waitForConnections', () => {
  it('resolves up once every connection is up', async () => {
    let up = false;
    const { logger } = capture();
    const waiting = waitForConnections('submission', logger, [{ ready: () => up, waitingFor: () => ['Redis'] }], { stopped: () => false });
    setTimeout(() => (up = true), 50);
    await expect(waiting).resolves.toBe('up');
  });

  it('says what it waits for while it waits, and fails at its deadline naming it', async () => {
    const { lines, logger } = capture();
    await expect(waitForConnections('submission', logger, [redisDown], { stopped: () => false, deadlineMs: 300, progressEveryMs: 100 })).rejects.toThrow(
      "submission did not become ready: after 300 ms it still waits for Redis at 127.0.0.1:6379 (the sender's connection is connecting). Check that Redis and MongoDB are running and reachable at REDIS_URL and MONGO_URL",
    );
    const progress = lines.filter((l) => l['msg'] === "submission is not ready yet: waiting for Redis at 127.0.0.1:6379 (the sender's connection is connecting)");
    expect(progress.length).toBeGreaterThanOrEqual(1);
  });

  it('ends without a ready when a shutdown began', async () => {
    let stopping = false;
    const { logger } = capture();
    const waiting = waitForConnections('submission', logger, [redisDown], { stopped: () => stopping, deadlineMs: 10_000 });
    setTimeout(() => (stopping = true), 50);
    await expect(waiting).resolves.toBe('stopped');
  });

  it('names only the connections that are not up', async () => {
    const { logger } = capture();
    const mongoUp: StartingConnections = { ready: () => true, waitingFor: () => ['MongoDB'] };
    await expect(waitForConnections('scheduler', logger, [mongoUp, redisDown], { stopped: () => false, deadlineMs: 50 })).rejects.toThrow(/still waits for Redis at 127\.0\.0\.1:6379 \(the sender's connection is connecting\)\. Check/);
  });
});
