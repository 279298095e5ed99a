import { DEFAULT_OPERATOR, OperatorRequestBody, operatorBy } from './operator-request';
import { parseInput } from './parse-input';

describe('the body of resubmit and cancel', () => {
  it('accepts an empty object and trims what is given', () => {
    expect(parseInput(OperatorRequestBody, {}, 'body')).toEqual({ ok: true, data: {} });
    expect(parseInput(OperatorRequestBody, { by: ' alice ', reason: ' customer asked ' }, 'body')).toEqual({
      ok: true,
      data: { by: 'alice', reason: 'customer asked' },
    });
  });

  it('refuses a body that is not an object, showing what a good one looks like', () => {
    const parsed = parseInput(OperatorRequestBody, ['cancel'], 'body');
    expect(!parsed.ok && parsed.error).toMatch(/the body must be a JSON object such as \{"by":"alice"/);
  });

  it('refuses unknown fields and wrongly typed ones', () => {
    expect(parseInput(OperatorRequestBody, { who: 'x' }, 'body')).toEqual({
      ok: false,
      error: "Bad request body: unknown body field; only by and reason are accepted (got 'who')",
    });
    const parsed = parseInput(OperatorRequestBody, { by: 7 }, 'body');
    expect(!parsed.ok && parsed.error).toBe("Bad request body: by must be text naming the operator (got '7')");
  });
});

describe('who the operator command names', () => {
  it('is the operator; the reason travels in its own field', () => {
    expect(operatorBy({ by: 'alice', reason: 'customer asked' })).toBe('alice');
    expect(operatorBy({ by: 'alice' })).toBe('alice');
  });

  it('is the authenticated caller when there is one, whatever the body names', () => {
    expect(operatorBy({ by: 'alice' }, 'operator:3fa9c1')).toBe('operator:3fa9c1');
    expect(operatorBy({}, 'operator:bob')).toBe('operator:bob');
  });

  it('is the dashboard default when nobody is named', () => {
    expect(operatorBy({})).toBe(DEFAULT_OPERATOR);
    expect(operatorBy({ reason: 'stuck' })).toBe(DEFAULT_OPERATOR);
  });
});
