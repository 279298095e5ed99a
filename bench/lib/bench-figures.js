// @ts-check
'use strict';

const { round } = require('./latency-stats');

/** Steps of `order-fulfilment`: one order costs at least this many request/reply round trips. */
const STEPS_PER_ORDER = 3;

/**
 * Issue 8's targets, each a bound on a ratio of the report. `atMost`: the figure must not exceed
 * it; `atLeast`: it must reach it. The benchmark prints them next to the figures and never fails
 * on them: it measures, a reader judges.
 */
const TARGETS = Object.freeze({
  latencyOverheadK1: { atMost: 2.0, moonshot: 1.5 },
  throughputEfficiencyK64: { atLeast: 0.5, moonshot: 0.7 },
  preloadedLatency: { atMost: 1.2 },
  preloadedThroughput: { atLeast: 1 / 1.2 },
  scalingLinearity: { atLeast: 0.9 },
  recoveryOverTarget: { atMost: 1.0 },
  peakRssMb: { atMost: 150, moonshot: 100 },
});

/**
 * @typedef {object} RecoveryOrder
 * @property {string} orderId
 * @property {boolean} redispatched one of its steps was dispatched more than once
 * @property {number} doneAt performance.now() when its final status arrived (NaN if it never did)
 * @property {string} status its final status
 */

/**
 * @typedef {object} RecoveryFigures
 * @property {number} ms kill → the last affected order Processed
 * @property {number} targetMs complete-by + one sweep interval + 1 s
 * @property {number} completeByMs
 * @property {number} sweepIntervalMs
 * @property {number} ordersInFlightAtKill
 * @property {number} affectedOrders orders in flight at the kill that needed a step dispatched again
 * @property {'redispatched' | 'in flight at the kill'} basis which orders `ms` is over: the affected ones, or (when the kill caught none) all in flight at the kill
 * @property {Record<string, number>} notProcessed orders in flight at the kill that ended otherwise, by status
 */

/**
 * Time from an agent's kill until the last order it affected is Processed. Affected means a step
 * was dispatched again (the dead agent held it, so a supervisor recovered it). When the kill
 * caught no request, every order in flight at the kill counts instead, and `basis` says so.
 *
 * @param {{ killAt: number, orders: readonly RecoveryOrder[], completeByMs: number, sweepIntervalMs: number }} input
 * @returns {RecoveryFigures}
 */
function recoveryFigures({ killAt, orders, completeByMs, sweepIntervalMs }) {
  const affected = orders.filter((o) => o.redispatched);
  const basis = affected.length > 0 ? 'redispatched' : 'in flight at the kill';
  const counted = affected.length > 0 ? affected : orders;
  /** @type {Record<string, number>} */
  const notProcessed = {};
  for (const o of orders) if (o.status !== 'Processed') notProcessed[o.status] = (notProcessed[o.status] ?? 0) + 1;
  const unfinished = counted.filter((o) => !Number.isFinite(o.doneAt));
  if (unfinished.length > 0) throw new Error(`${unfinished.length} orders in flight at the kill never finished (${unfinished.map((o) => o.orderId).slice(0, 5).join(', ')})`);
  const ms = counted.reduce((max, o) => Math.max(max, o.doneAt - killAt), 0);
  return {
    ms: Math.round(ms),
    targetMs: completeByMs + sweepIntervalMs + 1000,
    completeByMs,
    sweepIntervalMs,
    ordersInFlightAtKill: orders.length,
    affectedOrders: affected.length,
    basis,
    notProcessed,
  };
}

/**
 * a ÷ b to three decimals; 0 when b is 0 (a phase that measured nothing must still print).
 * @param {number} a @param {number} b
 */
function ratioOf(a, b) {
  return b > 0 ? round(a / b) : 0;
}

/**
 * Orders/s at each replica count, and how linear the growth is: the rate at the last count
 * divided by (that count × the rate at the first), 1.0 being perfectly linear.
 * @param {readonly number[]} replicas e.g. [1, 2, 4]
 * @param {readonly number[]} ordersPerSecond one per replica count
 */
function scalingLinearity(replicas, ordersPerSecond) {
  const first = ordersPerSecond[0] ?? 0;
  const firstReplicas = replicas[0] ?? 1;
  const perStep = ordersPerSecond.map((x, i) => ratioOf(x, first * ((replicas[i] ?? 0) / firstReplicas)));
  return { linearity: perStep[perStep.length - 1] ?? 0, perStep };
}

/**
 * @param {Record<string, import('./process-sampler').RolePeak>} roles
 * @param {(role: string) => boolean} include
 */
function cpuSecondsOf(roles, include) {
  return Object.entries(roles).reduce((sum, [role, r]) => (include(role) ? sum + r.cpuSeconds : sum), 0);
}

/**
 * @typedef {object} Measurements what the phases measured, before any figure is derived
 * @property {string} startedAt
 * @property {{ cpus: number, cpuModel: string, memoryMb: number, node: string, platform: string }} machine
 * @property {Record<string, unknown>} options
 * @property {string} topology the processes of the system, in words
 * @property {{ k1: import('./raw-round-trips').RoundTripResult, k64: import('./raw-round-trips').RoundTripResult, k1Idle?: import('./raw-round-trips').RoundTripResult }} baseline `k1Idle`: 1 in flight with an idle wait before each round trip
 * @property {{ k1: import('./bench-system').ClosedLoopFigures, k64: import('./bench-system').ClosedLoopFigures }} sas
 * @property {Record<string, import('./process-sampler').RolePeak>} roles memory and CPU per role over the 64-in-flight window
 * @property {{ processes: number, events: number, seconds: number, k1: import('./bench-system').ClosedLoopFigures, k64: import('./bench-system').ClosedLoopFigures }} [preload]
 * @property {{ replicas: number[], runs: import('./bench-system').ClosedLoopFigures[], remoteLatencyMs: number, agentConcurrency: number, inFlight: number, systemCores?: (number | undefined)[], machineCores?: (number | undefined)[], cpus?: number }} scaling
 * @property {Measurements['scaling']} [slowScaling] the same series with a remote slow enough to dominate on this machine
 * @property {RecoveryFigures & Record<string, unknown>} recovery
 * @property {{ shards: number[], runs: import('./bench-system').ClosedLoopFigures[], inFlight: number }} [cluster] orders/s on a Redis Cluster of 1 and of 3 masters
 * @property {Record<string, unknown>} mongo
 */

/**
 * The report written to bench/results/latest.json: every figure with the keys issue 8 names,
 * the ratios that compare it with its baseline, and the targets. Pure, so the arithmetic is
 * tested without running anything.
 *
 * @param {Measurements} m
 */
function buildReport(m) {
  const { baseline, sas, roles } = m;
  const b1 = baseline.k1;
  const b64 = baseline.k64;
  const isService = (/** @type {string} */ role) => role !== 'redis' && role !== 'bench driver' && !role.startsWith('mongodb');
  // Everything a step needs besides the application: services, MongoDB, Redis.
  const systemCpuSeconds = cpuSecondsOf(roles, (role) => role !== 'bench driver');
  const cpuMsPerOrder = ratioOf(systemCpuSeconds * 1000, sas.k64.completed);
  const scaling = scalingLinearity(m.scaling.replicas, m.scaling.runs.map((r) => r.ordersPerSecond));
  const b1Idle = baseline.k1Idle;
  const peakRssMb = Object.fromEntries(Object.entries(roles).map(([role, r]) => [role, Math.round(r.peakKb / 1024)]));
  const servicePeaks = Object.entries(peakRssMb).filter(([role]) => isService(role)).map(([, mb]) => mb);
  const preload = m.preload;
  return {
    startedAt: m.startedAt,
    machine: m.machine,
    options: m.options,
    topology: m.topology,
    baseline: {
      k1: { p50Ms: b1.latencyMs.p50, p95Ms: b1.latencyMs.p95, roundTripsPerSecond: b1.roundTripsPerSecond, latencyMs: b1.latencyMs },
      ...(b1Idle ? { k1Idle: { idleGapMs: b1Idle.idleGapMs, p50Ms: b1Idle.latencyMs.p50, p95Ms: b1Idle.latencyMs.p95, latencyMs: b1Idle.latencyMs } } : {}),
      k64: {
        roundTripsPerSecond: b64.roundTripsPerSecond,
        p50Ms: b64.latencyMs.p50,
        p95Ms: b64.latencyMs.p95,
        latencyMs: b64.latencyMs,
        cpuMsPerRoundTrip: b64.cpuMsPerRoundTrip,
        responderPeakRssMb: Math.round(b64.responderPeakKb / 1024),
      },
    },
    sas: {
      k1: withoutIds(sas.k1),
      k64: { ...withoutIds(sas.k64), cpuMsPerOrder, cpuMsPerStep: round(cpuMsPerOrder / STEPS_PER_ORDER) },
    },
    preload: preload
      ? { processes: preload.processes, events: preload.events, seconds: preload.seconds, k1: withoutIds(preload.k1), k64: withoutIds(preload.k64) }
      : { processes: 0 },
    scaling: scalingFigures(m.scaling, m.machine.cpus),
    ...(m.slowScaling ? { slowScaling: scalingFigures(m.slowScaling, m.machine.cpus) } : {}),
    recovery: m.recovery,
    cluster: m.cluster ? clusterFigures(m.cluster) : { shards: [] },
    memory: {
      peakRssMb,
      restRssMb: Object.fromEntries(Object.entries(roles).map(([role, r]) => [role, Math.round(r.restKb / 1024)])),
      cpuSeconds: Object.fromEntries(Object.entries(roles).map(([role, r]) => [role, r.cpuSeconds])),
      processes: Object.fromEntries(Object.entries(roles).map(([role, r]) => [role, r.processes])),
      maxServicePeakRssMb: servicePeaks.length > 0 ? Math.max(...servicePeaks) : 0,
    },
    mongo: m.mongo,
    ratios: {
      latencyOverheadK1: ratioOf(sas.k1.p50Ms, STEPS_PER_ORDER * b1.latencyMs.p50),
      ...(b1Idle ? { latencyOverColdK1: ratioOf(sas.k1.p50Ms, STEPS_PER_ORDER * b1Idle.latencyMs.p50) } : {}),
      throughputEfficiencyK64: ratioOf(sas.k64.ordersPerSecond, b64.roundTripsPerSecond / STEPS_PER_ORDER),
      ...(preload
        ? {
            preloadedLatency: ratioOf(preload.k1.p50Ms, sas.k1.p50Ms),
            preloadedThroughput: ratioOf(preload.k64.ordersPerSecond, sas.k64.ordersPerSecond),
          }
        : {}),
      scalingLinearity: scaling.linearity,
      ...(m.slowScaling ? { slowRemoteScalingLinearity: scalingFigures(m.slowScaling, m.machine.cpus).linearity } : {}),
      ...(m.cluster ? { threeShardsOverOne: ratioOf(clusterFigures(m.cluster).ordersPerSecond.threeShards, clusterFigures(m.cluster).ordersPerSecond.oneShard) } : {}),
      recoveryOverTarget: ratioOf(m.recovery.ms, m.recovery.targetMs),
      cpuPerStepOverRoundTrip: ratioOf(cpuMsPerOrder / STEPS_PER_ORDER, b64.cpuMsPerRoundTrip),
    },
    targets: TARGETS,
  };
}

/**
 * One scaling series as reported: orders/s per replica count, how linear, and what bounded it.
 * @param {Measurements['scaling']} run
 * @param {number} machineCpus
 */
function scalingFigures(run, machineCpus) {
  const scaling = scalingLinearity(run.replicas, run.runs.map((r) => r.ordersPerSecond));
  return {
    replicas: run.replicas,
    ordersPerSecond: run.runs.map((r) => r.ordersPerSecond),
    linearity: scaling.linearity,
    linearityPerStep: scaling.perStep,
    p50Ms: run.runs.map((r) => r.p50Ms),
    // What the remote allows: each replica of each agent makes one call of remoteLatencyMs at a time per CONCURRENCY.
    remoteBoundOrdersPerSecond: run.replicas.map((n) => round((n * run.agentConcurrency * 1000) / run.remoteLatencyMs)),
    remoteLatencyMs: run.remoteLatencyMs,
    agentConcurrency: run.agentConcurrency,
    inFlight: run.inFlight,
    // Cores the system's processes used, and cores busy machine-wide, over each window.
    systemCores: run.systemCores ?? [],
    machineBusyCores: run.machineCores ?? [],
    cpus: run.cpus ?? machineCpus,
  };
}

/**
 * The cluster phase's figures by shard count: `ordersPerSecond: { oneShard, threeShards }`.
 * @param {NonNullable<Measurements['cluster']>} c
 */
function clusterFigures(c) {
  const rate = (/** @type {number} */ shards) => c.runs[c.shards.indexOf(shards)]?.ordersPerSecond ?? 0;
  const p50 = (/** @type {number} */ shards) => c.runs[c.shards.indexOf(shards)]?.p50Ms ?? 0;
  return {
    shards: c.shards,
    inFlight: c.inFlight,
    ordersPerSecond: { oneShard: rate(1), threeShards: rate(3) },
    p50Ms: { oneShard: p50(1), threeShards: p50(3) },
  };
}

/**
 * The figures without the list of order ids (kept in memory only, for the store's timestamps).
 * @param {import('./bench-system').ClosedLoopFigures} f
 */
function withoutIds(f) {
  const { orderIds: _ids, ...rest } = f;
  return rest;
}

/**
 * Whether a ratio meets its target: 'met', 'missed', or 'moonshot' when it also meets the moonshot.
 * @param {keyof typeof TARGETS} name
 * @param {number | undefined} value
 * @returns {'met' | 'missed' | 'moonshot' | 'n/a'}
 */
function verdict(name, value) {
  if (value === undefined) return 'n/a';
  /** @type {{ atMost?: number, atLeast?: number, moonshot?: number }} */
  const t = TARGETS[name];
  const ok = (/** @type {number | undefined} */ bound) => bound === undefined || (t.atMost !== undefined ? value <= bound : value >= bound);
  if (!ok(t.atMost ?? t.atLeast)) return 'missed';
  return t.moonshot !== undefined && ok(t.moonshot) ? 'moonshot' : 'met';
}

module.exports = { buildReport, recoveryFigures, verdict, TARGETS, STEPS_PER_ORDER };
