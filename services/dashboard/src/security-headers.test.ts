import { sha256Source } from './bull-board-style-sources';
import { LOCAL_OPERATOR, startLocalDashboard, type LocalDashboard } from './test-support/local-dashboard';

describe('the Content-Security-Policy of the page and of bull-board', () => {
  let dashboard: LocalDashboard;
  const signedIn = { authorization: `Bearer ${LOCAL_OPERATOR}` };
  const get = async (path: string, headers: Record<string, string> = signedIn): Promise<{ csp: string; html: string }> => {
    const res = await fetch(`${dashboard.base}${path}`, { headers });
    return { csp: res.headers.get('content-security-policy') ?? '', html: await res.text() };
  };
  const directive = (csp: string, name: string): string => csp.split(';').find((d) => d.startsWith(`${name} `)) ?? '';

  beforeAll(async () => {
    dashboard = await startLocalDashboard();
  });
  afterAll(() => dashboard.close());

  it('allows the page no inline style but its own nonce: no unsafe-inline on the page, the sign-in page or the API', async () => {
    for (const [path, headers] of [['/', signedIn], ['/', {}], ['/api/summary', signedIn]] as const) {
      const { csp } = await get(path, headers);
      expect([path, csp]).not.toEqual([path, expect.stringContaining('unsafe-inline')]);
      expect(directive(csp, 'style-src')).toMatch(/^style-src 'nonce-[A-Za-z0-9+/=]+'$/);
    }
  });

  it('gives every <style> of the page the response’s nonce and leaves no style attribute, so the page keeps its styles', async () => {
    const { csp, html } = await get('/');
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];
    const styleTags = html.match(/<style[^>]*>/g) ?? [];
    expect(styleTags).toEqual([`<style nonce="${nonce}">`]);
    expect(html).toMatch(/<style nonce="[^"]+">[^<]*\.card \{/);
    expect(html).not.toMatch(/\sstyle=/i);
  });

  it('allows bull-board’s inline styles by their hashes, each one it serves, and never unsafe-inline', async () => {
    const { csp, html } = await get('/queues');
    expect(csp).not.toContain('unsafe-inline');
    const styleSrc = directive(csp, 'style-src');
    const inline = [...[...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1]!), ...[...html.matchAll(/\sstyle="([^"]*)"/g)].map((m) => m[1]!)];
    expect(inline.length).toBeGreaterThan(0);
    for (const text of inline) expect([text, styleSrc]).toEqual([text, expect.stringContaining(sha256Source(text))]);
    expect(styleSrc).toMatch(/^style-src 'self'( '(sha256-[A-Za-z0-9+/=]+|unsafe-hashes)')+$/);
  });
});
