// @ts-check
'use strict';

/**
 * @typedef {object} PeerFigures
 * @property {number} p50Ms median time of an order at 1 in flight (start → finished, as the application sees it)
 * @property {number} ordersPerSecond orders finished per second at 64 in flight
 * @property {number} cpuMsPerOrder CPU time of every process of the system (and the driver) per order at 64 in flight
 * @property {number} pssMb sum over those processes of each one's peak PSS at 64 in flight, in MiB
 */

/**
 * @typedef {object} PeerRow
 * @property {string} system e.g. `Restate`, `sas (final status events only)`
 * @property {boolean} isSas the row the ratios divide by the others
 * @property {boolean} [isSasLayout] sas in another layout (sas-shared, sas-up): its own ratios to the peers follow
 * @property {PeerFigures} [figures] absent when the system could not start or finish
 * @property {string} [error] why it has no figures
 * @property {number} loadBefore 1-minute load average just before the system was started
 * @property {number} loadAfter the same just after its last measurement
 * @property {number} processes how many OS processes the figures are summed over
 * @property {Record<string, { processes: number, cpuMsPerOrder: number, pssMb: number }>} [byRole] the same figures per kind of process
 * @property {import('./work-counters').WorkPerOrder} [work] what an order cost the system's stores (Redis, BullMQ, MongoDB), where it could be counted
 * @property {string[]} settings every setting that differs from the system's defaults, and what the system does per order
 */

/**
 * @typedef {object} PeerRatios
 * @property {string} peer
 * @property {number | undefined} p50 sas's p50 ÷ the peer's (below 1: sas is faster)
 * @property {number | undefined} ordersPerSecond sas's orders/s ÷ the peer's (above 1: sas is faster)
 * @property {number | undefined} cpuMsPerOrder sas's CPU per order ÷ the peer's (below 1: sas is cheaper)
 * @property {number | undefined} pssMb sas's memory ÷ the peer's (below 1: sas is smaller)
 */

/**
 * a ÷ b to 2 decimals; undefined when either is missing or b is not positive (a ratio that cannot
 * be taken is shown as such, never as 0 or Infinity).
 * @param {number | undefined} a
 * @param {number | undefined} b
 */
function ratio(a, b) {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b <= 0) return undefined;
  return Math.round((a / b) * 100) / 100;
}

/**
 * sas ÷ each peer, figure by figure (issue 24's targets are all such ratios). No sas figures → no
 * ratios; a peer without figures gets a row of undefined, so the table still names it.
 * @param {readonly PeerRow[]} rows
 * @returns {PeerRatios[]}
 */
function peerRatios(rows) {
  const sas = rows.find((r) => r.isSas)?.figures;
  return rows
    .filter((r) => !r.isSas)
    .map((r) => ({
      peer: r.system,
      p50: ratio(sas?.p50Ms, r.figures?.p50Ms),
      ordersPerSecond: ratio(sas?.ordersPerSecond, r.figures?.ordersPerSecond),
      cpuMsPerOrder: ratio(sas?.cpuMsPerOrder, r.figures?.cpuMsPerOrder),
      pssMb: ratio(sas?.pssMb, r.figures?.pssMb),
    }));
}

/**
 * Each other layout of sas ÷ each peer (not ÷ sas), so a layout's figures can be read against the
 * targets too; the main ratios stay those of the row marked `isSas`.
 * @param {readonly PeerRow[]} rows
 * @returns {Array<{ layout: string, ratios: PeerRatios[] }>}
 */
function layoutRatios(rows) {
  const peers = rows.filter((r) => !r.isSas && !r.isSasLayout);
  return rows
    .filter((r) => r.isSasLayout && r.figures)
    .map((l) => ({ layout: l.system, ratios: peerRatios([...peers, { ...l, isSas: true }]) }));
}

/** @param {number | undefined} x @param {string} [unit] */
const cell = (x, unit = '') => (x === undefined ? '–' : `${x}${unit}`);

/**
 * The comparison as Markdown: one row per system (or why it has none), then the ratios.
 * @param {readonly PeerRow[]} rows
 * @returns {string}
 */
function renderPeerTable(rows) {
  const lines = [
    '| system | p50, 1 in flight | orders/s, 64 in flight | CPU per order, every process | memory (sum of PSS) | processes | load before → after |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const f = r.figures;
    const load = `${r.loadBefore.toFixed(2)} → ${r.loadAfter.toFixed(2)}`;
    if (f) lines.push(`| ${r.system} | ${f.p50Ms} ms | ${f.ordersPerSecond} | ${f.cpuMsPerOrder} ms | ${f.pssMb} MB | ${r.processes} | ${load} |`);
    else lines.push(`| ${r.system} | could not run: ${(r.error ?? 'unknown reason').replace(/\s+/g, ' ').replace(/\|/g, '/')} | | | | | ${load} |`);
  }
  const ratios = peerRatios(rows);
  if (rows.some((r) => r.isSas && r.figures) && ratios.length > 0) {
    lines.push('', '| sas ÷ | p50, 1 in flight | orders/s, 64 in flight | CPU per order | memory (PSS) |', '|---|---|---|---|---|');
    for (const q of ratios) lines.push(`| ${q.peer} | ${cell(q.p50)} | ${cell(q.ordersPerSecond)} | ${cell(q.cpuMsPerOrder)} | ${cell(q.pssMb)} |`);
  }
  for (const { layout, ratios: byPeer } of layoutRatios(rows)) {
    if (byPeer.length === 0) continue;
    lines.push('', `| ${layout} ÷ | p50, 1 in flight | orders/s, 64 in flight | CPU per order | memory (PSS) |`, '|---|---|---|---|---|');
    for (const q of byPeer) lines.push(`| ${q.peer} | ${cell(q.p50)} | ${cell(q.ordersPerSecond)} | ${cell(q.cpuMsPerOrder)} | ${cell(q.pssMb)} |`);
  }
  const counted = rows.filter((r) => r.work);
  if (counted.length > 0) {
    lines.push('', '| work per order (counted, load-independent) | Redis commands | BullMQ job adds | MongoDB commands |', '|---|---|---|---|');
    for (const r of counted) {
      const w = /** @type {import('./work-counters').WorkPerOrder} */ (r.work);
      lines.push(`| ${r.system} | ${w.redisCommands} | ${w.bullmqJobs} | ${cell(w.mongoCommands)} |`);
    }
  }
  return lines.join('\n');
}

module.exports = { peerRatios, renderPeerTable };
