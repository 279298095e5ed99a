import { parseRetryAfter } from './parse-retry-after';

describe('parseRetryAfter', () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);

  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0.5 ', now)).toBe(500);
  });

  it('reads an HTTP date as the time left until it', () => {
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfter(new Date(now - 7000).toUTCString(), now)).toBe(0);
  });

  it('ignores a missing or unreadable header', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
