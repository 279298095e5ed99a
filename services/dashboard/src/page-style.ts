/**
 * The page's CSS, inlined because the dashboard must work with no network and no build step.
 * Plain and legible: system fonts, one accent colour per state.
 */
export const PAGE_STYLE = `
:root { --fg: #1d232a; --muted: #5f6b76; --line: #d8dee4; --bg: #f6f8fa; --ok: #1a7f37; --bad: #c62828; --warn: #9a6700; --run: #0550ae; --undo: #8250df; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1rem; align-items: baseline; flex-wrap: wrap; padding: .75rem 1.25rem; background: #fff; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.15rem; margin: 0; }
header .grow { flex: 1; }
main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; padding: 1rem 1.25rem; }
@media (max-width: 1100px) { main { grid-template-columns: minmax(0, 1fr); } }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; min-width: 0; }
section.wide { grid-column: 1 / -1; }
h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
h3 { font-size: .95rem; margin: 1rem 0 .35rem; color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { font-weight: 600; color: var(--muted); font-size: .85rem; }
tr.clickable { cursor: pointer; }
tr.clickable:hover, tr.selected { background: #eef4ff; }
.cards { display: flex; flex-wrap: wrap; gap: .5rem; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: .4rem .7rem; min-width: 6.5rem; }
.card b { display: block; font-size: 1.3rem; }
.card span { color: var(--muted); font-size: .85rem; }
.muted { color: var(--muted); }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 10px; font-size: .8rem; border: 1px solid currentColor; white-space: nowrap; }
.s-Processed, .s-Completed, .s-closed { color: var(--ok); }
.s-Error, .s-Failed, .s-open { color: var(--bad); }
.s-Pending, .s-NotStarted, .s-halfOpen { color: var(--warn); }
.s-Processing, .s-Running { color: var(--run); }
.s-Compensating, .s-Compensated, .s-Canceled, .s-Skipped { color: var(--undo); }
.filters, .actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: .5rem; }
input, select, button { font: inherit; padding: .25rem .5rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
button { cursor: pointer; background: #f3f4f6; }
button:hover { background: #e5e7eb; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.answer { min-height: 1.4em; margin: .25rem 0; }
.answer.ok { color: var(--ok); }
.answer.error, p.error { color: var(--bad); }
.members { display: flex; flex-wrap: wrap; gap: .5rem; }
.member { flex: 1 1 12rem; border: 1px solid var(--line); border-radius: 6px; padding: .3rem .5rem; }
ol.timeline { list-style: none; margin: 0; padding: 0 0 0 1rem; border-left: 2px solid var(--line); }
ol.timeline li { position: relative; padding: .1rem 0 .7rem .75rem; }
ol.timeline li::before { content: ""; position: absolute; left: -1.45rem; top: .45rem; width: .7rem; height: .7rem; border-radius: 50%; background: #fff; border: 2px solid var(--run); }
ol.timeline .when { font-size: .8rem; color: var(--muted); }
`;
