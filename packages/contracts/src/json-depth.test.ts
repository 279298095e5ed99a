import { MAX_PAYLOAD_DEPTH, nestsDeeperThan } from './json-depth';
import { SubmissionMessage } from './submission-message';

/** An object nested `levels` deep: `{ a: { a: ... {} } }`. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('nestsDeeperThan', () => {
  it('counts objects and arrays as levels and ignores scalars', () => {
    expect(nestsDeeperThan({ a: 1, b: 'x' }, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [1] }, 1)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: null }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
  });

  it('checks a payload nested a million levels without overflowing the stack', () => {
    expect(nestsDeeperThan(nested(1_000_000), MAX_PAYLOAD_DEPTH)).toBe(true);
  });
});

describe('when a submission payload nests too deep', () => {
  const message = (payload: Record<string, unknown>) => ({ schemaVersion: 1, orderId: 'o-1', workflow: 'order-fulfilment', payload });

  it('accepts a payload at the limit', () => {
    expect(SubmissionMessage.safeParse(message(nested(MAX_PAYLOAD_DEPTH))).success).toBe(true);
  });

  it('refuses one level more, saying what the limit is', () => {
    const parsed = SubmissionMessage.safeParse(message(nested(MAX_PAYLOAD_DEPTH + 1)));
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe('payload must nest at most 64 levels of objects and arrays (MongoDB stores at most 100)');
  });

  it('refuses a payload nested 2,000 levels (the poison that stalled claims) with the same message', () => {
    const parsed = SubmissionMessage.safeParse(message(nested(2000)));
    expect(parsed.error?.issues.map((i) => i.message)).toEqual([
      'payload must nest at most 64 levels of objects and arrays (MongoDB stores at most 100)',
    ]);
  });
});
