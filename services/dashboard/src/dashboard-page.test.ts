import { Script } from 'node:vm';
import { AUDIT_PANEL_SCRIPT } from './audit-panel-script';
import { renderDashboardPage } from './dashboard-page';
import { escapeHtml } from './escape-html';
import { PAGE_SCRIPT } from './page-script';

describe('escaping text for HTML', () => {
  it('replaces the five characters that can end text or an attribute', () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')"> & more`)).toBe('&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt; &amp; more');
  });

  it('leaves other text as it is', () => {
    expect(escapeHtml('order A-1 → Processed')).toBe('order A-1 → Processed');
  });
});

describe('the dashboard page', () => {
  const page = renderDashboardPage({ nonce: 'n0nce', instanceId: 'dash<script>1', queuePrefix: 'sas"x' });

  it('is self-contained: no URL to another host', () => {
    expect(page).not.toMatch(/(https?:)?\/\/[a-z0-9]/i);
    expect(page).not.toMatch(/<link|<img|src=/i);
  });

  it('escapes the values it is given', () => {
    expect(page).toContain('instance dash&lt;script&gt;1 · queue prefix sas&quot;x');
    expect(page).not.toContain('dash<script>');
  });

  it('marks its only script and style with the nonce the security policy allows', () => {
    expect(page.match(/<script nonce="n0nce">/g)).toHaveLength(1);
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toContain('<style nonce="n0nce">');
  });

  it('asks no one for a name: the signed-in principal is who acts', () => {
    expect(page).not.toContain('id="a-by"');
    expect(PAGE_SCRIPT).not.toContain('a-by');
  });

  it('shows the audit log to operators (and without a login), not to viewers', () => {
    expect(page).toMatch(/<h2>Audit log<\/h2>\s*<div id="audit">/);
    expect(renderDashboardPage({ nonce: 'n', instanceId: 'd', queuePrefix: 'q', signedInAs: 'operator:o', role: 'operator' })).toContain('<div id="audit">');
    expect(renderDashboardPage({ nonce: 'n', instanceId: 'd', queuePrefix: 'q', signedInAs: 'viewer:v', role: 'viewer' })).not.toContain('<div id="audit">');
  });

  it('has a place for the alerts the dashboard stored', () => {
    expect(page).toMatch(/<h2>Alerts<\/h2>\s*<div id="alerts">/);
  });

  it('carries every process state for the state filter', () => {
    expect(page).toContain('data-states="Pending,Processing,Processed,Error,Compensating,Compensated,Canceled"');
  });
  it('names who is signed in, escaped, beside a Sign out button; neither without a login', () => {
    const signedIn = renderDashboardPage({ nonce: 'n', instanceId: 'd', queuePrefix: 'q', signedInAs: 'operator:<b>' });
    expect(signedIn).toContain('<span class="muted" id="who">operator:&lt;b&gt;</span>');
    expect(signedIn).toContain('<button type="button" id="sign-out">Sign out</button>');
    expect(page).not.toMatch(/id="who"|id="sign-out"/);
  });
});

describe('the page script', () => {
  it('is valid JavaScript', () => {
    expect(() => new Script(PAGE_SCRIPT, { filename: 'page-script.js' })).not.toThrow();
    expect(() => new Script(AUDIT_PANEL_SCRIPT, { filename: 'audit-panel-script.js' })).not.toThrow();
    expect(AUDIT_PANEL_SCRIPT).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('never writes HTML from data: no innerHTML, outerHTML, insertAdjacentHTML or document.write', () => {
    expect(PAGE_SCRIPT).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('reads the newest alerts from the API and refreshes them with the rest', () => {
    expect(PAGE_SCRIPT).toContain("api('GET', '/api/alerts?limit=' + ALERTS_SHOWN)");
    expect(PAGE_SCRIPT).toMatch(/Promise\.all\(\[loadSummary\(\), loadAlerts\(\)/);
  });

  it('only talks to this server', () => {
    expect(PAGE_SCRIPT.match(/fetch\(/g)).toHaveLength(1);
    expect(PAGE_SCRIPT).not.toMatch(/\/\/[a-z0-9]/i);
  });
});
