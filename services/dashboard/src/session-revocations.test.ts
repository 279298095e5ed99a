import { SessionRevocations, type RevocationRedis } from './session-revocations';

/** A Redis that keeps keys with their TTL, as `SET … PX` and `EXISTS` do (kept here: test code stays out of the build). */
class FakeRedis implements RevocationRedis {
  readonly keys = new Map<string, number>();
  down = false;
  constructor(private readonly now: () => number) {}
  async set(key: string, _value: string, _px: 'PX', ms: number): Promise<unknown> {
    if (this.down) throw new Error('connect ECONNREFUSED');
    this.keys.set(key, this.now() + ms);
    return 'OK';
  }
  async exists(key: string): Promise<number> {
    if (this.down) throw new Error('connect ECONNREFUSED');
    return (this.keys.get(key) ?? 0) > this.now() ? 1 : 0;
  }
}

describe('SessionRevocations', () => {
  let t = 1_000_000;
  const now = (): number => t;

  it('refuses a signed-out sign-in on every replica sharing the Redis, until the cookie would have expired', async () => {
    const redis = new FakeRedis(now);
    const [a, b] = [new SessionRevocations(now, redis, 'sas:dashboard'), new SessionRevocations(now, redis, 'sas:dashboard')];
    const id = SessionRevocations.idOf('v2.1.2.mac');
    await a.revoke(id, t + 60_000);
    expect([await a.isRevoked(id), await b.isRevoked(id), await b.isRevoked(SessionRevocations.idOf('v2.1.2.other'))]).toEqual([true, true, false]);
    expect([...redis.keys.keys()]).toEqual([`sas:dashboard:signed-out:${id}`]);
    t += 60_000;
    expect([await a.isRevoked(id), await b.isRevoked(id)]).toEqual([false, false]);
  });

  it('still refuses the sign-out on the replica that saw it while Redis is unreachable', async () => {
    const redis = new FakeRedis(now);
    redis.down = true;
    const replica = new SessionRevocations(now, redis);
    const id = SessionRevocations.idOf('v2.3.4.mac');
    await replica.revoke(id, t + 60_000);
    expect(await replica.isRevoked(id)).toBe(true);
  });
});
