import type { TemplateScope } from './template';
import { PathEscapeError, fillUrl, urlTemplateProblem } from './url-template';

const scopeWith = (payload: Record<string, unknown>): TemplateScope => ({
  agent: 'warehouse',
  operation: 'reserve',
  orderId: 'o-1',
  processId: 'p-1',
  step: 'reserve-stock',
  attempt: 1,
  try: 1,
  mode: 'forward',
  idempotencyKey: 'p-1/reserve-stock/forward',
  payload,
  results: {},
  compensates: undefined,
  env: { BASE: 'http://wh.test/api', ODD: 'http://wh.test/a b' },
});

describe('a URL template', () => {
  it('keeps a path value in its one segment: a slash is encoded, so ../ cannot climb out', () => {
    expect(fillUrl('{env.BASE}/orders/{payload.id}/reservation', scopeWith({ id: '../admin' }))).toBe(
      'http://wh.test/api/orders/..%2Fadmin/reservation',
    );
    expect(new URL(fillUrl('{env.BASE}/orders/{payload.id}/reservation', scopeWith({ id: '../admin' }))).pathname).toBe(
      '/api/orders/..%2Fadmin/reservation',
    );
  });

  it.each(['..', '.'])('refuses a path value %s that a URL parser would resolve as a dot segment', (id) => {
    const fill = (): string => fillUrl('{env.BASE}/orders/{payload.id}/reservation', scopeWith({ id }));
    expect(fill).toThrow(PathEscapeError);
    expect(fill).toThrow(`the value of {payload.id} makes the path segment '${encodeURIComponent(id)}', which a URL parser resolves`);
  });

  it('refuses a dot segment made of two values side by side', () => {
    expect(() => fillUrl('{env.BASE}/orders/{payload.a}{payload.b}', scopeWith({ a: '.', b: '.' }))).toThrow(PathEscapeError);
  });

  it('takes dots that are not a whole segment as they are', () => {
    expect(fillUrl('{env.BASE}/orders/{payload.id}', scopeWith({ id: '...' }))).toBe('http://wh.test/api/orders/...');
    expect(fillUrl('{env.BASE}/orders/{payload.id}.json', scopeWith({ id: 'a.b' }))).toBe('http://wh.test/api/orders/a.b.json');
    // A value spelling a dot segment in percent-encoding is encoded once more: the remote reads it back as written.
    expect(fillUrl('{env.BASE}/orders/{payload.id}', scopeWith({ id: '%2e%2E' }))).toBe('http://wh.test/api/orders/%252e%252E');
  });

  it('query-encodes a value in the query, where dots and slashes climb nothing', () => {
    expect(fillUrl('{env.BASE}/orders?id={payload.id}&ref={payload.ref}', scopeWith({ id: '..', ref: 'a&b=c #d' }))).toBe(
      'http://wh.test/api/orders?id=..&ref=a%26b%3Dc%20%23d',
    );
  });

  it('does not call a URL that is not one once its variables are filled in, naming the template', () => {
    expect(urlTemplateProblem('{env.BASE}/orders/{orderId}', { BASE: 'http://wh.test' })).toBeNull();
    expect(urlTemplateProblem('{env.BASE}/orders/{orderId}', { BASE: 'wh.test' })).toBe(
      "'{env.BASE}/orders/{orderId}' is not a URL once its variables are filled in ('wh.test/orders/x' with x for each value from a request)",
    );
    expect(urlTemplateProblem('ftp://wh.test/{orderId}', {})).toContain('is not an http: or https: URL (ftp:)');
    // An unset variable is the agent's own start-up error, which names it.
    expect(urlTemplateProblem('{env.BASE}/orders', {})).toBeNull();
  });
});
