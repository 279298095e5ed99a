import { keySlot } from './key-slot';

describe('keySlot', () => {
  it('gives the slots Redis Cluster gives (CLUSTER KEYSLOT)', () => {
    // 12739 is CRC16-XModem's check value for "123456789"; the others were read from redis-server 7.0.
    expect(keySlot('123456789')).toBe(12739);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('bar')).toBe(5061);
  });

  it('hashes only the hash tag when it has one, and the whole key when its braces hold nothing', () => {
    // Each value read from CLUSTER KEYSLOT of redis-server 7.0.
    expect(keySlot('{user1000}.following')).toBe(3443);
    expect(keySlot('user1000')).toBe(3443);
    expect(keySlot('foo{}{bar}')).toBe(8363);
    expect(keySlot('foo{{bar}}zap')).toBe(4015);
  });
});
