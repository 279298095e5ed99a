import { uniqueName, waitFor, withDatabase } from '@sas/testkit';

describe('waitFor', () => {
  it('resolves with the first truthy value the probe returns', async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls >= 3 ? { calls } : undefined), {
      timeoutMs: 5000,
      intervalMs: 1,
      description: 'the third call',
    });
    expect(value).toEqual({ calls: 3 });
  });

  it('awaits asynchronous probes and treats a throw as "not yet"', async () => {
    let calls = 0;
    const value = await waitFor(
      async () => {
        calls += 1;
        if (calls < 3) throw new Error('not ready');
        return 'ready';
      },
      { timeoutMs: 5000, intervalMs: 1, description: 'an async probe' },
    );
    expect(value).toBe('ready');
  });

  it('times out with the description and the last value as JSON', async () => {
    await expect(
      waitFor(() => false, {
        timeoutMs: 100,
        description: 'the order to be Processed',
      }),
    ).rejects.toThrow('Timed out after 100 ms waiting for the order to be Processed; last value: false');

    await expect(
      waitFor((): { state: string } | null => null, { timeoutMs: 50, description: 'a document' }),
    ).rejects.toThrow('Timed out after 50 ms waiting for a document; last value: null');
  });

  it('includes the last error thrown by the probe and the diagnostics', async () => {
    await expect(
      waitFor(
        () => {
          throw new TypeError('connection refused');
        },
        { timeoutMs: 80, description: 'the server', diagnostics: () => 'see /tmp/logs/scheduler-1.log' },
      ),
    ).rejects.toThrow(
      'Timed out after 80 ms waiting for the server; last value: undefined; last error: TypeError: connection refused\nsee /tmp/logs/scheduler-1.log',
    );
  });

  it('gives up on a probe that never settles', async () => {
    await expect(
      waitFor(() => new Promise<boolean>(() => undefined), { timeoutMs: 100, description: 'a hung probe' }),
    ).rejects.toThrow(
      'Timed out after 100 ms waiting for a hung probe; last value: undefined; the last probe was still pending at the deadline',
    );
  });
});

describe('uniqueName', () => {
  it('never repeats and uses only characters valid in queue prefixes and database names', () => {
    const names = Array.from({ length: 1000 }, () => uniqueName('crash recovery: scheduler/1.test'));
    expect(new Set(names).size).toBe(1000);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(name.length).toBeLessThan(64);
    }
    expect(names[0]).toMatch(
      new RegExp(`^crash_recovery__scheduler_1_test-${process.pid}-\\d+-[0-9a-f]{6}$`),
    );
  });
});

describe('withDatabase', () => {
  it('puts the database name in the path and keeps hosts and options', () => {
    expect(withDatabase('mongodb://127.0.0.1:4000/?directConnection=true', 'db1')).toBe(
      'mongodb://127.0.0.1:4000/db1?directConnection=true',
    );
    expect(withDatabase('mongodb://a:1,b:2/old?replicaSet=rs0', 'db1')).toBe(
      'mongodb://a:1,b:2/db1?replicaSet=rs0',
    );
    expect(withDatabase('mongodb://127.0.0.1:4000', 'db1')).toBe('mongodb://127.0.0.1:4000/db1');
  });

  it('rejects what is not a mongodb URL', () => {
    expect(() => withDatabase('redis://x', 'db1')).toThrow("Cannot add a database name to 'redis://x'");
  });
});
