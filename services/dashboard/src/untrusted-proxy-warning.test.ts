import type { RequestHandler } from 'express';
import { pino } from 'pino';
import { untrustedProxyWarning } from './untrusted-proxy-warning';

/** Runs the middleware over requests with the given headers and returns the warnings logged. */
function warningsFor(trustProxy: boolean | string | number, requests: Record<string, string>[]): string[] {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push((JSON.parse(line) as { msg: string }).msg) });
  const handler: RequestHandler = untrustedProxyWarning(logger, trustProxy);
  for (const headers of requests) {
    const req = { get: (name: string) => headers[name.toLowerCase()], socket: { remoteAddress: '10.0.0.9' } };
    let passed = false;
    handler(req as never, {} as never, () => (passed = true));
    expect(passed).toBe(true);
  }
  return lines;
}

describe('untrustedProxyWarning', () => {
  it('warns once, naming DASHBOARD_TRUST_PROXY, when forwarded requests arrive and no proxy is trusted', () => {
    const warnings = warningsFor(false, [{}, { 'x-forwarded-for': '198.51.100.7' }, { 'x-forwarded-for': '198.51.100.8' }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('set DASHBOARD_TRUST_PROXY');
  });

  it('says nothing when a proxy is trusted, or when no request was forwarded', () => {
    expect(warningsFor('10.0.0.0/8', [{ 'x-forwarded-for': '198.51.100.7' }])).toEqual([]);
    expect(warningsFor(false, [{}, {}])).toEqual([]);
  });
});
