// @ts-check
'use strict';

/**
 * @typedef {object} BenchReport
 * @property {string} startedAt ISO time the run began
 * @property {{ cpus: number, cpuModel: string, memoryMb: number, node: string, platform: string }} machine
 * @property {Omit<import('./parse-args').BenchOptions, 'help'> & { help?: undefined }} options
 * @property {{ inFlight1: import('./raw-round-trips').RoundTripResult, inFlight64: import('./raw-round-trips').RoundTripResult }} baseline
 * @property {Omit<import('./system-orders').SystemOrdersResult, 'memoryByRole'> & { stepsPerBaselineRoundTrip: number, mongo: string }} system
 * @property {{ embedded: import('./mongo-round-trips').MongoRoundTripResult[], external?: import('./mongo-round-trips').MongoRoundTripResult[] }} mongo
 * @property {Record<string, import('./process-sampler').RolePeak & { peakPerResponder: number }>} memory
 * @property {import('./preload-history').PreloadResult & { system: Omit<import('./system-orders').SystemOrdersResult, 'memoryByRole'> }} [preload] the run over a preloaded history
 * @property {{ preloadedLatency: number, preloadedLatencyP95: number, preloadedThroughput: number }} [ratios] preloaded run ÷ empty-store run
 */

/**
 * The final table: one row per measurement, each with its rate, its latency and its ratio to the
 * baseline of the same run. Plain fixed-width text, so it reads the same in a terminal, a CI log
 * and the README.
 *
 * @param {BenchReport} report
 * @returns {string}
 */
function renderReport(report) {
  const { baseline, system, mongo, memory, machine } = report;
  const b1 = baseline.inFlight1;
  const b64 = baseline.inFlight64;
  /** @type {string[][]} */
  const rows = [['measurement', 'rate', 'p50 ms', 'p95 ms', 'ratio to baseline']];
  /** @param {string} title */
  const section = (title) => rows.push([title, '', '', '', '']);
  section('Baseline: raw BullMQ request/reply (responder process)');
  rows.push(['  1 in flight', `${fmt(b1.roundTripsPerSecond)} rt/s`, ms(b1.latencyMs.p50), ms(b1.latencyMs.p95), '1.00 (baseline)']);
  rows.push(['  64 in flight', `${fmt(b64.roundTripsPerSecond)} rt/s`, ms(b64.latencyMs.p50), ms(b64.latencyMs.p95), `${ratio(b64.roundTripsPerSecond, b1.roundTripsPerSecond)} of 1 in flight`]);
  section(`System: ${system.orders} orders end to end (${system.processes} processes, ${system.mongo} MongoDB)`);
  rows.push(['  orders', `${fmt(system.ordersPerSecond)} orders/s`, '', '', '']);
  rows.push(['  steps (3 per order)', `${fmt(system.stepsPerSecond)} steps/s`, '', '', `${ratio(system.stepsPerSecond, b64.roundTripsPerSecond)} of rt/s @64`]);
  rows.push(['  per order: created → Processed', '', ms(system.latencyMs.p50), ms(system.latencyMs.p95), '']);
  rows.push(['  per order: submitted → Processed', '', ms(system.submitToProcessedMs.p50), ms(system.submitToProcessedMs.p95), '']);
  const { preload, ratios } = report;
  if (preload && ratios) {
    const p = preload.system;
    section(`Flat with history: ${fmt(preload.processes)} finished processes + ${fmt(preload.events)} history entries preloaded (${preload.seconds} s), same orders again`);
    rows.push(['  orders', `${fmt(p.ordersPerSecond)} orders/s`, '', '', `${ratios.preloadedThroughput.toFixed(2)}× of empty store`]);
    rows.push(['  per order: created → Processed', '', ms(p.latencyMs.p50), ms(p.latencyMs.p95), `p50 ${ratios.preloadedLatency.toFixed(2)}×, p95 ${ratios.preloadedLatencyP95.toFixed(2)}× of empty store`]);
  }
  section('MongoDB: conditional findOneAndUpdate (official driver)');
  for (const r of [...mongo.embedded, ...(mongo.external ?? [])]) {
    const sameInFlight = r.inFlight === 1 ? b1 : b64;
    const embedded = mongo.embedded.find((e) => e.inFlight === r.inFlight);
    const vs = r.target === 'embedded' || !embedded
      ? `${ratio(r.roundTripsPerSecond, sameInFlight.roundTripsPerSecond)} of BullMQ rt/s @${r.inFlight}`
      : `embedded = ${ratio(embedded.roundTripsPerSecond, r.roundTripsPerSecond)} of this`;
    rows.push([`  ${r.target}, ${r.inFlight} in flight`, `${fmt(r.roundTripsPerSecond)} ops/s`, ms(r.latencyMs.p50), ms(r.latencyMs.p95), vs]);
  }
  section('Memory: RSS per role during the orders (at rest → peak; CPU seconds used, all processes of the role)');
  for (const [role, m] of Object.entries(memory)) {
    const count = m.processes > 1 ? ` (max of ${m.processes})` : '';
    rows.push([`  ${role}${count}`, `${mb(m.restKb)} → ${mb(m.peakKb)} MB`, '', '', `${m.peakPerResponder.toFixed(2)} of a bare worker; cpu ${m.cpuSeconds.toFixed(1)} s`]);
  }
  rows.push([`  bare BullMQ worker (responder @64)`, `${mb(b64.responderPeakKb)} MB`, '', '', '1.00 (baseline)']);

  /** @param {string[]} r @param {number} i */
  const isSection = (r, i) => i > 0 && r.slice(1).every((c) => c === '');
  const cells = rows.filter((r, i) => !isSection(r, i));
  const widths = rows[0]?.map((_, col) => Math.max(...cells.map((r) => (r[col] ?? '').length))) ?? [];
  const lines = rows.map((r, i) => {
    if (isSection(r, i)) return r[0] ?? '';
    return r.map((c, col) => (col === 0 || col === 4 ? c.padEnd(widths[col] ?? 0) : c.padStart(widths[col] ?? 0))).join('  ').trimEnd();
  });
  const header = `sas benchmarks, ${report.startedAt}: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryMb} MB, node ${machine.node}`;
  return [header, '', ...lines].join('\n');
}

/** @param {number} x */
function fmt(x) {
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1);
}

/** @param {number} x */
function ms(x) {
  return x >= 100 ? x.toFixed(0) : x.toFixed(2);
}

/** @param {number} kb */
function mb(kb) {
  return (kb / 1024).toFixed(0);
}

/** @param {number} a @param {number} b */
function ratio(a, b) {
  return b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a';
}

module.exports = { renderReport };
