/**
 * The page's "Remote services" panel, a script of its own beside `PAGE_SCRIPT`: each agent with
 * its pause state, held processes and who paused it and why, and Pause / Resume buttons (a pause
 * asks for a reason). Like the page script it builds the DOM from text nodes only, never `innerHTML`.
 *
 * Plain browser JavaScript in a string: it is not type-checked, so a unit test compiles it.
 */
export const AGENT_PANEL_SCRIPT = String.raw`
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, String(v));
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  };
  const when = (v) => (v ? String(v).replace('T', ' ').replace('Z', '') : '–');

  async function call(method, path, body) {
    try {
      const res = await fetch(path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
      const data = await res.json().catch(() => ({ error: 'HTTP ' + res.status + ' without a JSON body' }));
      return { ok: res.ok, data };
    } catch (e) {
      return { ok: false, data: { error: 'The dashboard server did not answer (' + e.message + '); is it running?' } };
    }
  }

  async function act(agent, action) {
    const reason = $('ag-reason').value.trim();
    const answer = $('ag-answer');
    if (action === 'pause' && !reason) {
      answer.className = 'answer error';
      answer.textContent = 'Say why you pause ' + agent + ' (reason), it is recorded with your name.';
      return;
    }
    const r = await call('POST', '/api/agents/' + encodeURIComponent(agent) + '/' + action, reason ? { reason } : {});
    answer.className = 'answer ' + (r.ok ? 'ok' : 'error');
    answer.textContent = r.ok ? r.data.message : r.data.error;
    await load();
  }

  async function load() {
    const r = await call('GET', '/api/agents');
    const box = $('agents');
    box.replaceChildren();
    if (!r.ok) return box.append(el('p', { class: 'error' }, r.data.error));
    box.append(el('table', null,
      el('thead', null, el('tr', null, ['agent', 'state', 'held', 'since', 'by', 'reason', ''].map((h) => el('th', null, h)))),
      el('tbody', null, r.data.agents.map((a) => el('tr', { 'data-agent': a.agent },
        el('td', null, a.agent),
        el('td', null, el('span', { class: 'badge ' + (a.paused ? 's-Error' : 's-Processed') }, a.paused ? 'paused' : 'running')),
        el('td', null, a.held),
        el('td', null, when(a.since)),
        el('td', null, a.by || '–'),
        el('td', null, a.reason || '–'),
        el('td', null, el('button', { type: 'button', onclick: () => void act(a.agent, a.paused ? 'resume' : 'pause') }, a.paused ? 'Resume' : 'Pause')))))));
  }

  setInterval(() => { if ($('auto').checked && !document.hidden) void load(); }, 3000);
  void load();
})();
`;
