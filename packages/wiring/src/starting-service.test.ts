import { recordConnections, startService, type StartingConnections } from './starting-service';

const up: StartingConnections = { ready: () => true, waitingFor: () => [] };

describe('startService', () => {
  it('collects the connections its main records across its awaits, and nothing recorded after the main settled', async () => {
    const first = startService(async () => {
      await Promise.resolve();
      recordConnections(up);
      return 'started';
    });
    expect(await first.result).toBe('started');
    recordConnections({ ready: () => false, waitingFor: () => ['late'] });
    expect(first.connections).toEqual([up]);
  });

  it('refuses a second start while one is in progress, and frees the slot once a main fails', async () => {
    let fail: (e: Error) => void = () => undefined;
    const failing = startService(() => new Promise<void>((_resolve, reject) => (fail = reject)));
    expect(() => startService(async () => undefined)).toThrow(/another service is still starting/);
    fail(new Error('bad config'));
    await expect(failing.result).rejects.toThrow('bad config');
    const next = startService(async () => recordConnections(up));
    await next.result;
    expect(next.connections).toEqual([up]);
  });
});
