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
  it('is the signed-in principal', () => {
    expect(operatorBy('operator:3fa9c1')).toBe('operator:3fa9c1');
  });

  it('is the dashboard default when nobody is signed in (DASHBOARD_AUTH=off): nothing typed reaches it', () => {
    expect(operatorBy()).toBe(DEFAULT_OPERATOR);
  });
});
