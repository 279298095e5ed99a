import { celSyntaxProblem, evaluateCondition, evaluateExpression } from './condition';

const input = { payload: { nights: 2, city: 'Oslo', tags: ['vip'] }, results: { 'check-customer': { verified: true }, 'book-car': null } };

describe('CEL expressions of a workflow', () => {
  it('reads the payload and results by step name, JSON numbers comparing with CEL integers', () => {
    expect(evaluateCondition('payload.nights > 1 && payload.city == "Oslo"', input)).toEqual({ ok: true, value: true });
    expect(evaluateCondition('results["check-customer"].verified && results["book-car"] == null', input)).toEqual({ ok: true, value: true });
    expect(evaluateCondition('"vip" in payload.tags', input)).toEqual({ ok: true, value: true });
    expect(evaluateCondition('has(payload.coupon) ? payload.coupon != "" : false', input)).toEqual({ ok: true, value: false });
  });

  it('reports a syntax problem with the expression and a caret under the column where it is', () => {
    expect(celSyntaxProblem('payload.nights >')).toBe('not a valid CEL expression: Unexpected token: EOF\n    payload.nights >\n                    ^');
    expect(celSyntaxProblem('payload.a &&& b')).toBe('not a valid CEL expression: Unexpected character: &\n    payload.a &&& b\n                ^');
    // The line of a multi-line expression where the problem is, with its own caret.
    expect(celSyntaxProblem('payload.a +\n  &b')).toBe('not a valid CEL expression: Unexpected character: &\n      &b\n      ^');
    expect(celSyntaxProblem('payload.nights > 1')).toBeNull();
  });

  it('says where an evaluation failed on one line, by line and column', () => {
    expect(evaluateCondition('payload.nope.x > 1', input)).toEqual({ ok: false, error: 'No such key: nope (at line 1, column 9)' });
  });

  it('never reads an error or a non-boolean as false', () => {
    expect(evaluateCondition('payload.coupon == "x"', input)).toEqual({ ok: false, error: expect.stringMatching(/^No such key: coupon/) });
    expect(evaluateCondition('payload.city', input)).toEqual({ ok: false, error: 'the condition gave the string "Oslo", not a boolean' });
    expect(evaluateCondition('1 + 1', input)).toEqual({ ok: false, error: 'the condition gave the int 2, not a boolean' });
  });

  it('evaluates other expressions to their value for the caller to check', () => {
    expect(evaluateExpression('payload.city + "-1"', input)).toEqual({ ok: true, value: 'Oslo-1' });
    expect(evaluateExpression('timestamp("2030-01-01T00:00:00Z")', input)).toEqual({ ok: true, value: expect.anything() });
  });
});
