/**
 * The page's "Audit log" panel (operators only), a script of its own beside `PAGE_SCRIPT`: the
 * newest entries of `GET /api/audit`, who did what to which target, from where, and how it
 * ended. Like the page script it builds the DOM from text nodes only, never `innerHTML`.
 *
 * Plain browser JavaScript in a string: it is not type-checked, so a unit test compiles it.
 */
export const AUDIT_PANEL_SCRIPT = String.raw`
(() => {
  'use strict';
  const $ = (id) => document.getElementById(id);
  if (!$('audit')) return;
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
    for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  };
  const when = (v) => (v ? String(v).replace('T', ' ').replace('Z', '') : '–');
  const OUTCOME = { ok: 's-Processed', refused: 's-Compensating', failed: 's-Error' };

  async function load() {
    const box = $('audit');
    let r;
    try {
      const res = await fetch('/api/audit?limit=25');
      r = { ok: res.ok, data: await res.json().catch(() => ({ error: 'HTTP ' + res.status + ' without a JSON body' })) };
    } catch (e) {
      r = { ok: false, data: { error: 'The dashboard server did not answer (' + e.message + '); is it running?' } };
    }
    box.replaceChildren();
    if (!r.ok) return box.append(el('p', { class: 'error' }, r.data.error));
    if (!r.data.entries.length) return box.append(el('p', { class: 'muted' }, 'Nothing recorded yet.'));
    box.append(el('table', null,
      el('thead', null, el('tr', null, ['at', 'who', 'action', 'target', 'order', 'outcome', 'from', 'detail'].map((h) => el('th', null, h)))),
      el('tbody', null, r.data.entries.map((a) => el('tr', null,
        el('td', null, when(a.at)),
        el('td', null, a.principal || '–'),
        el('td', null, a.action),
        el('td', null, a.target || a.route),
        el('td', null, a.orderId || '–'),
        el('td', null, el('span', { class: 'badge ' + (OUTCOME[a.outcome] || '') }, a.outcome + ' ' + a.status)),
        el('td', null, a.address),
        el('td', null, a.detail || '–'))))));
  }

  setInterval(() => { if ($('auto').checked && !document.hidden) void load(); }, 3000);
  void load();
})();
`;
