import { apiRequestInit, explainApiRefusal } from './dashboard-api';

describe('a request to the dashboard API', () => {
  it('carries the bearer token and JSON, and no Origin or Referer (a tool, not a browser)', () => {
    const post = apiRequestInit('tok', 'POST', { reason: 'customer asked' });
    expect(post).toEqual({ method: 'POST', headers: { authorization: 'Bearer tok', accept: 'application/json', 'content-type': 'application/json' }, body: '{"reason":"customer asked"}' });
    expect(apiRequestInit('tok', 'POST').body).toBe('{}');
    expect(apiRequestInit('tok', 'GET')).toEqual({ method: 'GET', headers: { authorization: 'Bearer tok', accept: 'application/json' } });
  });

  it('says what to do about a refused token, a viewer token and a rate limit', () => {
    const url = 'http://dash';
    expect(explainApiRefusal({ status: 401, body: { error: 'Sign in' } }, url)).toBe("Sign in (401: the dashboard at http://dash does not accept SAS_DASHBOARD_TOKEN; check it against the dashboard's DASHBOARD_TOKENS, or ask for a new operator token)");
    expect(explainApiRefusal({ status: 403, body: { error: 'Viewers cannot write' } }, url)).toContain("an operator token is needed, not a viewer's");
    expect(explainApiRefusal({ status: 429, body: {} }, url)).toBe('HTTP 429 (429: too many failed sign-ins from here; wait a minute and check SAS_DASHBOARD_TOKEN before trying again)');
    expect(explainApiRefusal({ status: 409, body: { error: 'The scheduler refused' } }, url)).toBe('The scheduler refused');
  });
});
