import { queueKeyPrefix, queuePrefixProblem } from './queue-key-prefix';

describe('queueKeyPrefix', () => {
  it('gives every queue its own hash tag after the system prefix', () => {
    expect(queueKeyPrefix('sas', 'agent.payment.requests')).toBe('sas:{agent.payment.requests}');
    expect(queueKeyPrefix('sas', 'scheduler.replies')).toBe('sas:{scheduler.replies}');
  });
});

describe('queuePrefixProblem', () => {
  it('accepts a plain name', () => {
    expect(queuePrefixProblem('sas')).toBeUndefined();
    expect(queuePrefixProblem('order-flow-123-1-abcdef')).toBeUndefined();
  });

  it('refuses a hash tag, which would put every queue in one slot', () => {
    expect(queuePrefixProblem('{sas}')).toBe(
      "QUEUE_PREFIX '{sas}' contains '{' or '}'; leave the hash tag out: every queue gets its own (decision 55), and a tag in the prefix would put every queue in one slot of a Redis Cluster",
    );
  });

  it("refuses ':' and an empty prefix", () => {
    expect(queuePrefixProblem('a:b')).toContain("contains ':'");
    expect(queuePrefixProblem('')).toContain('is empty');
  });
});
