// @ts-check
'use strict';

const { STEPS_PER_ORDER, TARGETS, verdict } = require('./bench-figures');

/** @typedef {ReturnType<typeof import('./bench-figures').buildReport>} BenchReport */

/**
 * The final table: one row per figure, with the baseline it is compared with (measured in the
 * same run), the ratio, issue 8's target for that ratio and whether it was met. Plain
 * fixed-width text, so it reads the same in a terminal, a CI log and the README.
 *
 * @param {BenchReport} report
 * @returns {string}
 */
function renderReport(report) {
  const { baseline, sas, preload, scaling, recovery, cluster, memory, mongo, ratios, machine } = report;
  const b1 = baseline.k1;
  const b64 = baseline.k64;
  /** @type {string[][]} */
  const rows = [['figure', 'measured', 'baseline (same run)', 'ratio', 'target', '']];
  /** A line of its own, outside the columns: a section title or a note. @param {string} title */
  const section = (title) => rows.push([title]);
  const note = section;
  /**
   * @param {string} figure @param {string} measured @param {string} base
   * @param {keyof typeof TARGETS | undefined} target @param {number | undefined} value
   */
  const row = (figure, measured, base, target, value) =>
    rows.push([figure, measured, base, value === undefined ? '' : `${value.toFixed(2)}×`, target ? describeTarget(target) : '', target ? verdict(target, value) : '']);

  section(`Baseline: raw BullMQ request/reply to a responder process`);
  row('  1 in flight', `p50 ${ms(b1.p50Ms)}, p95 ${ms(b1.p95Ms)}`, '', undefined, undefined);
  row('  64 in flight', `${fmt(b64.roundTripsPerSecond)} rt/s, CPU ${ms(b64.cpuMsPerRoundTrip)}/rt`, '', undefined, undefined);
  const cold = baseline.k1Idle;
  if (cold) row(`  1 in flight, ${cold.idleGapMs} ms idle before each`, `p50 ${ms(cold.p50Ms)}, p95 ${ms(cold.p95Ms)}`, '', undefined, undefined);

  section(`System: ${report.topology}; 3-step order-fulfilment, remote-sim at zero latency, ${report.options.statusEvents === 'all' ? 'every status event' : 'final status events only (Received, Processed)'}`);
  row('  latency, 1 in flight (submit → Processed)', `p50 ${ms(sas.k1.p50Ms)}, p95 ${ms(sas.k1.p95Ms)}, n ${sas.k1.completed}`, `3 × ${ms(b1.p50Ms)} = ${ms(STEPS_PER_ORDER * b1.p50Ms)}`, 'latencyOverheadK1', ratios.latencyOverheadK1);
  if (cold) row('    against round trips as cold as its own', '', `3 × ${ms(cold.p50Ms)} = ${ms(STEPS_PER_ORDER * cold.p50Ms)}`, undefined, ratios.latencyOverColdK1);
  row('    stored createdAt → updatedAt', `p50 ${ms(sas.k1.storeLatencyMs.p50)}`, '', undefined, undefined);
  row('  throughput, 64 in flight', `${fmt(sas.k64.ordersPerSecond)} orders/s, p50 ${ms(sas.k64.p50Ms)}`, `${fmt(b64.roundTripsPerSecond)} rt/s ÷ 3 = ${fmt(b64.roundTripsPerSecond / STEPS_PER_ORDER)}`, 'throughputEfficiencyK64', ratios.throughputEfficiencyK64);
  row('  CPU per step, all processes but the driver', ms(sas.k64.cpuMsPerStep), `${ms(b64.cpuMsPerRoundTrip)} per round trip`, undefined, ratios.cpuPerStepOverRoundTrip);

  if ('k1' in preload && preload.k1 && 'k64' in preload && preload.k64) {
    section(`Flat with history: ${fmt(preload.processes)} finished processes + ${fmt(preload.events ?? 0)} history entries stored (${preload.seconds ?? 0} s)`);
    row('  latency, 1 in flight', `p50 ${ms(preload.k1.p50Ms)}`, `empty store ${ms(sas.k1.p50Ms)}`, 'preloadedLatency', ratios.preloadedLatency);
    row('  throughput, 64 in flight', `${fmt(preload.k64.ordersPerSecond)} orders/s`, `empty store ${fmt(sas.k64.ordersPerSecond)}`, 'preloadedThroughput', ratios.preloadedThroughput);
  }

  /**
   * One scaling series; `target` names the figure (the 50 ms one) and is left out for the other.
   * @param {typeof scaling} series @param {string} title @param {boolean} judged
   */
  const scalingSeries = (series, title, judged) => {
    section(title);
    const first = series.ordersPerSecond[0] ?? 0;
    series.replicas.forEach((n, i) => {
      const rate = series.ordersPerSecond[i] ?? 0;
      const last = i === series.replicas.length - 1;
      const linear = first * (n / (series.replicas[0] ?? 1));
      const bound = `remote allows ${fmt(series.remoteBoundOrdersPerSecond[i] ?? 0)}`;
      const target = judged && last ? 'scalingLinearity' : undefined;
      row(`  ${n} replica${n > 1 ? 's' : ''} of each agent`, `${fmt(rate)} orders/s`, i === 0 ? bound : `${bound}, linear ${fmt(linear)}`, target, i === 0 ? undefined : series.linearityPerStep[i]);
    });
    const cores = (/** @type {(number | undefined)[] | undefined} */ list) => (list ?? []).map((c) => (c === undefined ? '?' : fmt(c))).join(' → ');
    if ((series.systemCores ?? []).length > 0) {
      note(`    CPU over each window: the system used ${cores(series.systemCores)} cores; the machine had ${cores(series.machineBusyCores)} of ${String(series.cpus)} busy (other jobs included)`);
    }
    const firstBound = series.remoteBoundOrdersPerSecond[0] ?? 0;
    if (first < 0.8 * firstBound) {
      note(`    (1 replica reached ${fmt(first)} of the ${fmt(firstBound)} orders/s the remote allows: the machine, not the remote, limits these rates)`);
    }
  };
  scalingSeries(scaling, `Scaling: remote-sim at ${scaling.remoteLatencyMs} ms, agent CONCURRENCY ${scaling.agentConcurrency}, ${scaling.inFlight} in flight`, true);
  if (report.slowScaling) {
    const slow = report.slowScaling;
    scalingSeries(slow, `Scaling where the remote dominates on this machine: remote-sim at ${slow.remoteLatencyMs} ms (not a target; the same series)`, false);
  }

  section(`Recovery: kill -9 of ${String(recovery['killed'])} at ${String(recovery['inFlight'])} in flight (payment at ${String(recovery['remoteLatencyMs'])} ms)`);
  row('  kill → last affected order Processed', `${fmt(recovery.ms)} ms, ${recovery.affectedOrders} of ${recovery.ordersInFlightAtKill} affected`, `${fmt(recovery.completeByMs)} + ${fmt(recovery.sweepIntervalMs)} + 1,000 = ${fmt(recovery.targetMs)} ms`, 'recoveryOverTarget', ratios.recoveryOverTarget);
  if (recovery.basis !== 'redispatched') note('    (the kill caught no request: the figure covers every order in flight at the kill)');

  if ('ordersPerSecond' in cluster) {
    section(`Redis Cluster: the system on 1 master against 3 masters (no replicas), ${cluster.inFlight} in flight`);
    row('  1 shard', `${fmt(cluster.ordersPerSecond.oneShard)} orders/s, p50 ${ms(cluster.p50Ms.oneShard)}`, '', undefined, undefined);
    row('  3 shards', `${fmt(cluster.ordersPerSecond.threeShards)} orders/s, p50 ${ms(cluster.p50Ms.threeShards)}`, `1 shard ${fmt(cluster.ordersPerSecond.oneShard)} orders/s`, undefined, ratios.threeShardsOverOne);
  }

  section('Memory and CPU per role over the 64-in-flight window (peak RSS of the largest process of the role; CPU seconds of all of them)');
  for (const [role, peak] of Object.entries(memory.peakRssMb)) {
    const count = (memory.processes[role] ?? 1) > 1 ? ` (${memory.processes[role]} processes)` : '';
    const service = role !== 'redis' && role !== 'bench driver' && !role.startsWith('mongodb');
    const cpu = `${(memory.cpuSeconds[role] ?? 0).toFixed(1)} s CPU`;
    rows.push([`  ${role}${count}`, `${memory.restRssMb[role] ?? 0} → ${peak} MB, ${cpu}`, service ? `bare worker ${b64.responderPeakRssMb} MB` : '', '', service ? describeTarget('peakRssMb') : '', service ? verdict('peakRssMb', peak) : '']);
  }

  section('MongoDB: conditional findOneAndUpdate (official driver)');
  const mongoRuns = /** @type {{ target: string, inFlight: number, roundTripsPerSecond: number, latencyMs: { p50: number } }[]} */ ([
    ...(/** @type {unknown[]} */ (mongo['embedded'] ?? [])),
    ...(/** @type {unknown[]} */ (mongo['external'] ?? [])),
  ]);
  for (const r of mongoRuns) {
    rows.push([`  ${r.target}, ${r.inFlight} in flight`, `${fmt(r.roundTripsPerSecond)} ops/s, p50 ${ms(r.latencyMs.p50)}`, '', '', '', '']);
  }

  const isSection = (/** @type {string[]} */ r) => r.length === 1;
  const cells = rows.filter((r) => !isSection(r));
  const widths = (rows[0] ?? []).map((_, col) => Math.max(...cells.map((r) => (r[col] ?? '').length)));
  const lines = rows.map((r) => (isSection(r) ? (r[0] ?? '') : r.map((c, col) => c.padEnd(widths[col] ?? 0)).join('  ').trimEnd()));
  const header = `sas benchmarks, ${report.startedAt}: ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryMb} MB, node ${machine.node}`;
  return [header, '', ...lines].join('\n');
}

/** @param {keyof typeof TARGETS} name */
function describeTarget(name) {
  /** @type {{ atMost?: number, atLeast?: number, moonshot?: number }} */
  const t = TARGETS[name];
  const unit = name === 'peakRssMb' ? ' MB' : '×';
  const bound = t.atMost !== undefined ? `≤ ${t.atMost.toFixed(name === 'peakRssMb' ? 0 : 2)}${unit}` : `≥ ${(t.atLeast ?? 0).toFixed(2)}${unit}`;
  return t.moonshot !== undefined ? `${bound} (moonshot ${t.moonshot}${unit})` : bound;
}

/** @param {number} x */
function fmt(x) {
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1);
}

/** @param {number} x milliseconds */
function ms(x) {
  return `${x >= 100 ? x.toFixed(0) : x.toFixed(2)} ms`;
}

module.exports = { renderReport };
