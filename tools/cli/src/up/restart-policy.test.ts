import { RestartPolicy } from './restart-policy';

describe('RestartPolicy', () => {
  it('restarts a child after its first crash within a second', () => {
    expect(new RestartPolicy().onExit(0)).toEqual({ kind: 'restart', delayMs: 1000, restart: 1 });
  });

  it('doubles the wait while crashes come close together, up to its bound', () => {
    const policy = new RestartPolicy({ maxExits: 10, maxDelayMs: 5000 });
    const delays = [0, 1, 2, 3, 4].map((t) => policy.onExit(t * 1000));
    expect(delays.map((d) => (d.kind === 'restart' ? d.delayMs : d.kind))).toEqual([1000, 2000, 4000, 5000, 5000]);
    expect(policy.restartCount).toBe(5);
  });

  it('calls five exits within 60 s a crash loop, and restarts no more', () => {
    const policy = new RestartPolicy();
    for (const t of [0, 5000, 10_000, 20_000]) expect(policy.onExit(t).kind).toBe('restart');
    expect(policy.onExit(59_000)).toEqual({ kind: 'crash-loop', exits: 5, windowMs: 60_000 });
  });

  it('forgets crashes older than the window: a child that stayed up a minute starts over at one second', () => {
    const policy = new RestartPolicy();
    for (const t of [0, 1000, 2000, 3000]) policy.onExit(t);
    expect(policy.onExit(63_500)).toEqual({ kind: 'restart', delayMs: 1000, restart: 5 });
  });

  it('refuses settings that cannot work, naming them', () => {
    expect(() => new RestartPolicy({ maxExits: 0 })).toThrow(/maxExits ≥ 1/);
  });
});
