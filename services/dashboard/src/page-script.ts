import { STEP_VIEW_SCRIPT } from './step-view-script';

/**
 * The page's script, inlined (no network, no build step). It only reads the JSON API and builds the
 * DOM with `createElement` and text nodes, never `innerHTML`: every value from the API is shown as
 * text, so an order id or a reason holding markup cannot run in an operator's browser.
 *
 * Plain browser JavaScript in a string: it is not type-checked, so a unit test compiles it.
 */
export const PAGE_SCRIPT = String.raw`
(() => {
  'use strict';
  const stepView = ${STEP_VIEW_SCRIPT};
  const states = (document.body.getAttribute('data-states') || '').split(',');
  let selected = null;
  let listed = [];
  let next = null;
  let pagedMore = false;
  const ALERTS_SHOWN = 20;

  const $ = (id) => document.getElementById(id);
  const add = (node, child) => {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) return child.forEach((c) => add(node, c));
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  };
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, String(v));
    }
    add(node, children);
    return node;
  };
  const fill = (id, ...children) => {
    const node = $(id);
    node.replaceChildren();
    add(node, children);
  };
  const when = (v) => (v ? String(v).replace('T', ' ').replace('Z', '') : '–');
  const badge = (s) => el('span', { class: 'badge s-' + s }, s);
  const problem = (text) => el('p', { class: 'error' }, text);

  async function api(method, path, body) {
    try {
      const res = await fetch(path, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
      // The session ended (expired, signed out in another tab, token removed): show the sign-in page.
      if (res.status === 401 && path !== '/logout') location.assign('/');
      const data = await res.json().catch(() => ({ error: 'HTTP ' + res.status + ' without a JSON body' }));
      return { ok: res.ok, data };
    } catch (e) {
      return { ok: false, data: { error: 'The dashboard server did not answer (' + e.message + '); is it running?' } };
    }
  }

  function table(headers, rows, onRow, isSelected) {
    return el('table', null,
      el('thead', null, el('tr', null, headers.map((h) => el('th', null, h)))),
      el('tbody', null, rows.map((row, i) => el('tr',
        onRow ? { class: 'clickable' + (isSelected && isSelected(i) ? ' selected' : ''), onclick: () => onRow(i) } : null,
        row.map((c) => el('td', null, c))))));
  }

  async function loadSummary() {
    const r = await api('GET', '/api/summary');
    if (!r.ok) return fill('summary', problem(r.data.error));
    const s = r.data;
    const card = (n, label, cls) => el('div', { class: 'card ' + (cls || '') }, el('b', null, n), el('span', null, label));
    fill('summary',
      el('div', { class: 'cards' },
        card(s.processes.total, 'processes'),
        states.map((st) => card(s.processes.byState[st] ?? 0, st, 's-' + st)),
        card(s.deadLetters, 'dead letters', s.deadLetters ? 's-Error' : '')),
      el('h3', null, 'By workflow'),
      table(['workflow', 'processes'], Object.entries(s.processes.byWorkflow)),
      el('h3', null, 'Queues'),
      table(['queue', 'waiting', 'active', 'delayed', 'failed'],
        Object.entries(s.queues).map(([q, c]) => [q, c.waiting, c.active, c.delayed, c.failed])));
    fill('breakers', s.breakers.length
      ? table(['agent', 'instance', 'state', 'retry at', 'reported'],
        s.breakers.map((b) => [b.agent, b.instanceId, badge(b.state), when(b.retryAt), when(b.updatedAt)]))
      : el('p', { class: 'muted' }, 'No agent has reported its breaker yet.'));
    fill('updated', 'updated ' + when(s.at));
  }

  async function loadAlerts() {
    const r = await api('GET', '/api/alerts?limit=' + ALERTS_SHOWN);
    if (!r.ok) return fill('alerts', problem(r.data.error));
    const list = r.data.alerts;
    const open = (i) => {
      const id = list[i].data.processId;
      if (id) location.hash = '#/process/' + encodeURIComponent(id);
    };
    fill('alerts', list.length
      ? [table(['raised', 'received', 'kind', 'order', 'step', 'reason'],
        list.map((a) => [when(new Date(a.data.at).toISOString()), when(a.receivedAt), el('span', { class: 'badge s-Error' }, a.data.kind),
          a.data.orderId || '–', a.data.step || '–', a.data.reason]), open),
        el('p', { class: 'muted' }, 'The newest ' + ALERTS_SHOWN + '; GET /api/alerts?limit=500 lists more.')]
      : el('p', { class: 'muted' }, 'No alert received.'));
  }

  async function loadBulk() {
    const r = await api('GET', '/api/bulk?limit=10');
    if (!r.ok) return fill('bulk', problem(r.data.error));
    const list = r.data.operations;
    fill('bulk', list.length
      ? table(['id', 'command', 'state', 'progress', 'done', 'refused', 'failed', 'by', 'reason', 'created'],
        list.map((o) => [o._id, o.command, badge(o.state), o.progress.matched + ' of about ' + o.expected,
          o.progress.done, o.progress.refused, o.progress.failed, o.by, o.reason, when(o.createdAt)]))
      : el('p', { class: 'muted' }, 'No bulk operation. Start one with POST /api/bulk or sas bulk resubmit|cancel.'));
  }

  function listPath(before) {
    const params = new URLSearchParams({ limit: '50' });
    const put = (name, value) => { if (value.trim()) params.set(name, value.trim()); };
    put('state', $('f-state').value);
    put('workflow', $('f-workflow').value);
    put('orderId', $('f-order').value);
    if (before) params.set('before', before);
    return '/api/processes?' + params.toString();
  }

  async function loadProcesses(more) {
    const r = await api('GET', listPath(more ? next : null));
    if (!r.ok) return fill('processes', problem(r.data.error));
    pagedMore = more;
    listed = more ? listed.concat(r.data.processes) : r.data.processes;
    next = r.data.next;
    fill('processes',
      listed.length
        ? table(['order', 'state', 'workflow', 'step', 'failures', 'updated'],
          listed.map((p) => [p.orderId, badge(p.state), p.workflow + ' v' + p.workflowVersion,
            (p.steps[p.currentStep] || {}).name || '–', p.failureCount, when(p.updatedAt)]),
          (i) => { location.hash = '#/process/' + encodeURIComponent(listed[i]._id); },
          (i) => listed[i]._id === selected)
        : el('p', { class: 'muted' }, 'No process matches these filters.'),
      next ? el('button', { type: 'button', onclick: () => loadProcesses(true) }, 'Load more') : null);
  }

  const field = (name, value) => [el('dt', null, name), el('dd', null, value)];

  function stepsTable(p) {
    const steps = p.steps;
    const member = (m) => el('div', { class: 'member' },
      el('div', null, el('b', null, m.n + '. ' + m.step.name), ' ', badge(m.step.state)),
      el('div', { class: 'muted' }, stepView.what(m.step, p), ' · dispatches ' + m.step.dispatches),
      el('div', { class: 'muted' }, when(m.step.startedAt) + ' → ' + when(m.step.finishedAt)),
      m.step.error ? el('div', { class: 'error' }, m.step.error) : null);
    return el('table', null,
      el('thead', null, el('tr', null, ['#', 'step', 'operation', 'state', 'dispatches', 'started', 'finished', 'error'].map((h) => el('th', null, h)))),
      el('tbody', null, stepView.entries(steps).map((e) => e.group
        ? el('tr', null, el('td', null, e.members[0].n + '–' + e.members[e.members.length - 1].n),
          el('td', { colspan: 7 }, el('div', { class: 'muted' }, 'parallel group ' + e.group), el('div', { class: 'members' }, e.members.map(member))))
        : el('tr', null, [e.members[0].n, e.members[0].step.name, stepView.what(e.members[0].step, p), badge(e.members[0].step.state),
          e.members[0].step.dispatches, when(e.members[0].step.startedAt), when(e.members[0].step.finishedAt), e.members[0].step.error || '']
          .map((c) => el('td', null, c))))));
  }

  async function loadProcess() {
    if (!selected) return;
    const r = await api('GET', '/api/processes/' + encodeURIComponent(selected));
    if (!r.ok) return fill('detail', problem(r.data.error));
    const p = r.data;
    fill('detail',
      el('h2', null, 'Order ', p.orderId, ' ', badge(p.state)),
      el('dl', null,
        field('process id', p._id), field('workflow', p.workflow + ' v' + p.workflowVersion),
        field('mode', p.mode), field('attempt', p.attempt), field('failures', p.failureCount),
        field('locked by', p.lockedBy || '–'), field('complete by', when(p.completeBy)),
        field('held for', p.heldFor ? 'agent ' + p.heldFor + ' (paused)' : '–'),
        field('reason', p.reason || '–'), field('created', when(p.createdAt)), field('updated', when(p.updatedAt))),
      el('h3', null, 'Steps'),
      stepsTable(p),
      el('h3', null, 'History'),
      el('ol', { class: 'timeline' }, p.history.map((h) => el('li', null,
        el('div', { class: 'when' }, when(h.at)),
        el('div', null, h.from ? badge(h.from) : el('span', { class: 'muted' }, 'new'), ' → ', badge(h.to),
          h.step ? el('span', { class: 'muted' }, ' at ' + h.step) : null),
        el('div', null, h.why),
        el('div', { class: 'muted' }, 'by ' + h.who + ' · attempt ' + h.attempt)))));
  }

  async function command(name) {
    if (!selected) return;
    const body = {};
    if ($('a-reason').value.trim()) body.reason = $('a-reason').value.trim();
    const answer = $('answer');
    answer.className = 'answer';
    answer.textContent = name + ': waiting for a scheduler to answer…';
    const r = await api('POST', '/api/processes/' + encodeURIComponent(selected) + '/' + name, body);
    answer.className = 'answer ' + (r.ok ? 'ok' : 'error');
    answer.textContent = r.ok ? 'Done: ' + r.data.message : r.data.error;
    await refresh();
  }

  async function signal() {
    if (!selected) return;
    const answer = $('answer');
    const name = $('a-signal').value.trim();
    const text = $('a-data').value.trim();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch (e) {
      answer.className = 'answer error';
      answer.textContent = 'The signal data is not JSON (' + e.message + '); write an object such as {"approved":true}, or leave it empty';
      return;
    }
    answer.className = 'answer';
    answer.textContent = 'signal ' + name + ': waiting for a scheduler to answer…';
    const r = await api('POST', '/api/processes/' + encodeURIComponent(selected) + '/signal', { name, data });
    answer.className = 'answer ' + (r.ok ? 'ok' : 'error');
    answer.textContent = r.ok ? r.data.outcome + ': ' + r.data.message : r.data.error;
    await refresh();
  }

  function select() {
    const m = /^#\/process\/(.+)$/.exec(location.hash);
    const id = m ? decodeURIComponent(m[1]) : null;
    if (id === selected) return;
    selected = id;
    $('actions').hidden = !id;
    $('answer').textContent = '';
    if (!id) fill('detail', el('p', { class: 'muted' }, 'Click a process to see its steps and history.'));
    void loadProcess();
    void loadProcesses(false);
  }

  // A form would need form-action in the page's CSP; the answer is the sign-in page, shown by reloading.
  async function signOut() {
    await api('POST', '/logout');
    location.assign('/');
  }

  async function refresh() {
    await Promise.all([loadSummary(), loadAlerts(), loadBulk(), pagedMore ? null : loadProcesses(false), loadProcess()]);
  }

  $('f-state').append(...states.map((s) => el('option', { value: s }, s)));
  $('filters').addEventListener('submit', (e) => { e.preventDefault(); void loadProcesses(false); });
  $('f-state').addEventListener('change', () => void loadProcesses(false));
  $('b-resubmit').addEventListener('click', () => void command('resubmit'));
  $('b-cancel').addEventListener('click', () => void command('cancel'));
  $('b-signal').addEventListener('click', () => void signal());
  if ($('sign-out')) $('sign-out').addEventListener('click', () => void signOut());
  window.addEventListener('hashchange', select);
  setInterval(() => { if ($('auto').checked && !document.hidden) void refresh(); }, 3000);
  select();
  void loadSummary();
  void loadAlerts();
  void loadBulk();
  if (!selected) void loadProcesses(false);
})();
`;
