import { ProcessState } from '@sas/contracts';
import { AGENT_PANEL_SCRIPT } from './agent-panel-script';
import { AUDIT_PANEL_SCRIPT } from './audit-panel-script';
import { escapeHtml } from './escape-html';
import { PAGE_SCRIPT } from './page-script';
import { PAGE_STYLE } from './page-style';

/** What the page shows about the server it came from. */
export interface DashboardPageOptions {
  /** Per-response random value; only the inline script carrying it may run. */
  nonce: string;
  instanceId: string;
  queuePrefix: string;
  /** Who is signed in (`operator:alice`), shown beside the Sign out button; absent when login is off. */
  signedInAs?: string;
  /** The signed-in role; the audit panel is shown to operators (and when login is off). */
  role?: 'viewer' | 'operator';
}

/**
 * The operator page: one self-contained HTML document (inline CSS and script, no external assets:
 * the machines it runs on may have no network). The script fills it from the JSON API. Its
 * Content-Security-Policy comes from `securityHeaders`, with the nonce given here.
 */
export function renderDashboardPage(options: DashboardPageOptions): string {
  const nonce = escapeHtml(options.nonce);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sas dashboard</title>
<style nonce="${nonce}">${PAGE_STYLE}</style>
</head>
<body data-states="${escapeHtml(ProcessState.options.join(','))}">
<header>
  <h1>sas dashboard</h1>
  <span class="muted">instance ${escapeHtml(options.instanceId)} · queue prefix ${escapeHtml(options.queuePrefix)}</span>
  <span class="grow"></span>
  <span class="muted" id="updated"></span>
  <label><input type="checkbox" id="auto" checked> auto-refresh</label>
  <a href="queues">Queues (bull-board)</a>
  ${options.signedInAs === undefined ? '' : `<span class="muted" id="who">${escapeHtml(options.signedInAs)}</span>\n  <button type="button" id="sign-out">Sign out</button>`}
</header>
<main>
  <section>
    <h2>Summary</h2>
    <div id="summary"><p class="muted">Loading…</p></div>
  </section>
  <section>
    <h2>Circuit breakers</h2>
    <div id="breakers"><p class="muted">Loading…</p></div>
  </section>
  <section>
    <h2>Remote services</h2>
    <input id="ag-reason" placeholder="reason (required to pause)" maxlength="500" aria-label="pause reason">
    <p class="answer" id="ag-answer" role="status"></p>
    <div id="agents"><p class="muted">Loading…</p></div>
  </section>
  <section class="wide">
    <h2>Alerts</h2>
    <div id="alerts"><p class="muted">Loading…</p></div>
  </section>
  ${options.role === 'viewer' ? '' : `<section class="wide">
    <h2>Audit log</h2>
    <div id="audit"><p class="muted">Loading…</p></div>
  </section>`}
  <section class="wide">
    <h2>Bulk operations</h2>
    <div id="bulk"><p class="muted">Loading…</p></div>
  </section>
  <section>
    <h2>Processes</h2>
    <form class="filters" id="filters">
      <select id="f-state" aria-label="state"><option value="">every state</option></select>
      <input id="f-workflow" placeholder="workflow" aria-label="workflow">
      <input id="f-order" placeholder="orderId" aria-label="orderId">
      <button type="submit">Filter</button>
    </form>
    <div id="processes"><p class="muted">Loading…</p></div>
  </section>
  <section>
    <h2>Process</h2>
    <div class="actions" id="actions" hidden>
      <input id="a-reason" placeholder="reason (optional)" maxlength="500" aria-label="reason">
      <button type="button" id="b-resubmit" title="Restart an Error process from its failed step">Resubmit</button>
      <button type="button" id="b-cancel" title="Stop an unfinished process and undo what it did">Cancel</button>
      <input id="a-signal" placeholder="signal name" maxlength="200" aria-label="signal name">
      <input id="a-data" placeholder='data, e.g. {"approved":true}' maxlength="16384" aria-label="signal data (JSON object, optional)">
      <button type="button" id="b-signal" title="Send a named signal to the process (a signal step waits for it)">Signal</button>
    </div>
    <p class="answer" id="answer" role="status"></p>
    <div id="detail"><p class="muted">Click a process to see its steps and history.</p></div>
  </section>
</main>
<script nonce="${nonce}">${PAGE_SCRIPT}${AGENT_PANEL_SCRIPT}${AUDIT_PANEL_SCRIPT}</script>
</body>
</html>
`;
}
