#!/usr/bin/env node
// @ts-check
'use strict';
// `pnpm bench`: what a step of the system costs next to a baseline measured in the same run on the
// same machine, so the numbers mean something on any machine (issue 8's figures):
//   1. baseline: raw BullMQ request/reply between this process and a responder process (1 and 64 in
//      flight, and 1 in flight with an idle wait before each, as cold as the system's processes are);
//   2. the system, every service its own process in the default topology, 3-step order-fulfilment,
//      remote-sim at zero latency: a closed loop with 1 order in flight (latency) and with 64
//      (throughput), and the memory and CPU of every role during the 64;
//   3. the same two loops again with `--preload` finished processes in the store (flat with history);
//   4. recovery: kill -9 of an agent mid-run, time until every affected order is Processed;
//   5. scaling: remote-sim at 50 ms, agents 1 → 2 → 4 replicas, orders/s for each; then the same with
//      the remote at 250 ms, where it (not the 2 cores) limits the rate;
//   6. Redis Cluster: the system on 1 master and on 3 masters, orders/s at 64 in flight;
//   7. conditional findOneAndUpdate against the embedded MongoDB (and MONGO_URL's, when set).
// `--peers` runs instead the comparison with Restate, DBOS and a hand-rolled BullMQ chain (issue 24,
// bench/lib/peers-run.js); `--profile` instead profiles the system's processes.
// It reports and never judges: exit 0 when it ran, 1 with a message when something could not
// start or finish, 130 on Ctrl-C, always after stopping every process it started.

const { randomBytes } = require('node:crypto');
const { mkdirSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { findOnPath, findWorkspaceRoot, locateEmbeddedMongoCli, serviceScript, startEmbeddedMongo, startRedis } = require('@sas/stack');
const { orderFulfilmentV1 } = require('@sas/workflow');
const { measureAgentRecovery } = require('./lib/agent-recovery');
const { measureAgentScaling, SLOW_REMOTE_LATENCY_MS } = require('./lib/agent-scaling');
const { measureClusterShards } = require('./lib/cluster-shards');
const { buildReport } = require('./lib/bench-figures');
const { BenchSystem } = require('./lib/bench-system');
const { CleanupStack } = require('./lib/cleanup-stack');
const { measureMongoRoundTrips } = require('./lib/mongo-round-trips');
const { parseArgs, USAGE } = require('./lib/parse-args');
const { runPeers } = require('./lib/peers-run');
const { preloadHistory } = require('./lib/preload-history');
const { childPidsMatching, ProcessSampler } = require('./lib/process-sampler');
const { renderProfile, runProfile } = require('./lib/profile-run');
const { measureRawRoundTrips } = require('./lib/raw-round-trips');
const { renderReport } = require('./lib/render-report');

/** The supervisors' SWEEP_INTERVAL_MS: the benchmark leaves it at its default. */
const SWEEP_INTERVAL_MS = 1000;
/** The idle wait before each raw round trip of the cold baseline (see phase 1). */
const IDLE_GAP_MS = 20;
/** Orders in flight during the recovery run: a moderate load, well below the 64 of the throughput run. */
const RECOVERY_IN_FLIGHT = 16;

/** @param {string} line */
const say = (line) => console.log(line);

/** @param {readonly string[]} argv @returns {Promise<number>} exit code */
async function main(argv) {
  const options = parseArgs(argv);
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  const cleanup = new CleanupStack(say);
  cleanup.installSignalHandlers();
  const runId = randomBytes(3).toString('hex');
  const startedAt = new Date().toISOString();
  const warmupMs = options.warmupSeconds * 1000;
  const windowMs = options.windowSeconds * 1000;
  const logDir = join(os.tmpdir(), 'sas-bench', runId);
  const began = Date.now();
  const elapsed = () => `${((Date.now() - began) / 1000).toFixed(0)} s`;
  try {
    preflight();
    say(`sas bench ${runId}${options.quick ? ' (--quick)' : ''}${options.profile ? ' (--profile)' : ''}: service logs in ${logDir}`);
    if (options.profile) return await profileOnly(options, runId, logDir, cleanup);
    if (options.peers) {
      mkdirSync(logDir, { recursive: true });
      say(`\n${await runPeers({ options, runId, logDir, say, cleanup })}`);
      await cleanup.runAll();
      rmSync(logDir, { recursive: true, force: true });
      return 0;
    }
    const redis = await startRedis();
    cleanup.push('redis-server', () => redis.stop());
    say(`Redis: private redis-server at ${redis.url}`);

    say(`\n[1/7] baseline: raw BullMQ request/reply, ${options.warmupSeconds} s warm-up + ${options.baselineSeconds} s per setting`);
    const baselineRun = (/** @type {number} */ inFlight, idleGapMs = 0) =>
      measureRawRoundTrips({
        idleGapMs,
        redisPort: redis.port,
        redisPid: () => redis.pid,
        prefix: `bench-raw-${runId}`,
        inFlight,
        warmupMs,
        durationMs: options.baselineSeconds * 1000,
        say,
        signal: cleanup.signal,
      });
    const k1 = await baselineRun(1);
    say(`  1 in flight: ${k1.roundTripsPerSecond} rt/s, p50 ${k1.latencyMs.p50} ms, p95 ${k1.latencyMs.p95} ms`);
    cleanup.throwIfInterrupted();
    const k64 = await baselineRun(64);
    say(`  64 in flight: ${k64.roundTripsPerSecond} rt/s, p50 ${k64.latencyMs.p50} ms; ${k64.cpuMsPerRoundTrip} ms CPU per round trip`);
    cleanup.throwIfInterrupted();
    // The system's processes wait 10–40 ms between their turns at 1 in flight, and a process woken
    // after such a wait answers slower than one kept busy (caches, scheduler wake-up): the same
    // raw round trip, made that cold, shows how much of the latency ratio that alone explains.
    const k1Idle = await baselineRun(1, IDLE_GAP_MS);
    say(`  1 in flight, ${IDLE_GAP_MS} ms idle before each: p50 ${k1Idle.latencyMs.p50} ms, p95 ${k1Idle.latencyMs.p95} ms`);

    cleanup.throwIfInterrupted();
    // The system always runs on the embedded server, whatever MONGO_URL says: it is what CI and the
    // demo use on machines like this one, and its memory belongs in the table. MONGO_URL only adds
    // a comparison in phase 6.
    const mongo = await startEmbeddedMongo({ reason: 'the benchmark measures the embedded server' });
    cleanup.push('the embedded MongoDB', () => mongo.stop());
    const cli = locateEmbeddedMongoCli();
    const mongoPid = () => childPidsMatching(process.pid, cli)[0];
    say(`MongoDB: embedded server at ${mongo.url} (pid ${String(mongoPid() ?? 'unknown')})`);
    const systemOptions = {
      redis: { url: redis.url, pid: () => redis.pid },
      mongo: { url: mongo.url, kind: mongo.kind, pid: mongoPid },
      stallMs: options.stallSeconds * 1000,
      statusEvents: options.statusEvents,
      say,
      cleanup,
    };

    say(`\n[2/7] system, default topology, remote-sim at zero latency (${elapsed()} so far)`);
    const bench = await BenchSystem.start({ ...systemOptions, name: `bench-${runId}`, logDir });
    const topology = describeTopology(bench);
    say(`  ${topology}`);
    if (options.systemWarmupOrders > 0) {
      const warm = await bench.warmUp({ orders: options.systemWarmupOrders, inFlight: 64 });
      say(`  warmed up: ${warm.orders} orders in ${warm.seconds} s, unmeasured`);
    }
    /** @param {string} label @param {number} inFlight @param {ProcessSampler} [sampler] */
    const loop = (label, inFlight, sampler) => bench.closedLoop({ label, inFlight, warmupMs, durationMs: windowMs, sampler });
    const sasK1 = await loop('1 in flight', 1);
    say(`  1 in flight: p50 ${sasK1.p50Ms} ms, p95 ${sasK1.p95Ms} ms (submit → Processed event); ${sasK1.completed} orders`);
    const sampler = new ProcessSampler(bench.sampledProcesses());
    const sasK64 = await loop('64 in flight', 64, sampler);
    const roles = sampler.peaksByRole();
    say(`  64 in flight: ${sasK64.ordersPerSecond} orders/s, p50 ${sasK64.p50Ms} ms, p95 ${sasK64.p95Ms} ms`);

    /** @type {import('./lib/bench-figures').Measurements['preload']} */
    let preloaded;
    if (options.preload > 0) {
      cleanup.throwIfInterrupted();
      // Issue 8's "flat with history": the same loops again, into the database the services use,
      // now holding a week of finished processes; the ratios to the runs above should stay near 1.
      say(`\n[3/7] flat with history: ${options.preload.toLocaleString('en-US')} finished processes stored, then the same runs (${elapsed()} so far)`);
      const preload = await preloadHistory({ url: mongo.url, dbName: bench.dbName, processes: options.preload, say });
      const pk1 = await loop('1 in flight, preloaded', 1);
      say(`  1 in flight: p50 ${pk1.p50Ms} ms (empty store: ${sasK1.p50Ms} ms)`);
      const pk64 = await loop('64 in flight, preloaded', 64);
      say(`  64 in flight: ${pk64.ordersPerSecond} orders/s (empty store: ${sasK64.ordersPerSecond})`);
      preloaded = { ...preload, k1: pk1, k64: pk64 };
    } else {
      say('\n[3/7] flat with history: skipped (--preload 0)');
    }

    cleanup.throwIfInterrupted();
    const completeByMs = orderFulfilmentV1.steps.find((s) => s.agent === 'payment')?.completeByMs ?? 0;
    say(`\n[4/7] recovery: kill -9 of an agent at ${RECOVERY_IN_FLIGHT} in flight (${elapsed()} so far)`);
    const recovery = await measureAgentRecovery({ bench, inFlight: RECOVERY_IN_FLIGHT, warmupMs: Math.max(warmupMs, 1000), completeByMs, sweepIntervalMs: SWEEP_INTERVAL_MS, say, signal: cleanup.signal });
    say(`  ${recovery.ms} ms from the kill until the last of ${recovery.affectedOrders} affected orders was Processed (target ${recovery.targetMs} ms)`);

    cleanup.throwIfInterrupted();
    say(`\n[5/7] scaling: remote-sim at 50 ms then 250 ms, agents 1 → 2 → 4 replicas, on the same system (${elapsed()} so far)`);
    const scaling = await measureAgentScaling({ bench, warmupMs, durationMs: options.scalingSeconds * 1000, say });
    say(`  again with the remote at ${SLOW_REMOTE_LATENCY_MS} ms, where it dominates on this machine`);
    const slowScaling = await measureAgentScaling({ bench, warmupMs, durationMs: options.scalingSeconds * 1000, say, remoteLatencyMs: SLOW_REMOTE_LATENCY_MS });
    say('  stopping the system ...');
    await bench.stop();

    cleanup.throwIfInterrupted();
    say(`\n[6/7] Redis Cluster: the system on 1 master, then on 3 masters, 64 in flight (${elapsed()} so far)`);
    const cluster = await measureClusterShards({
      system: systemOptions,
      runId,
      logDir,
      warmupOrders: options.systemWarmupOrders,
      warmupMs,
      durationMs: windowMs,
      say,
    });

    cleanup.throwIfInterrupted();
    say(`\n[7/7] MongoDB: conditional findOneAndUpdate, ${options.mongoSeconds} s per setting (${elapsed()} so far)`);
    const mongoRun = (/** @type {string} */ url, /** @type {string} */ target, /** @type {number} */ inFlight) =>
      measureMongoRoundTrips({ url, target, dbName: `bench-mongo-${runId}`, inFlight, warmupMs: Math.min(warmupMs, 1000), durationMs: options.mongoSeconds * 1000, signal: cleanup.signal });
    const embedded = [];
    for (const inFlight of [1, 64]) {
      const r = await mongoRun(mongo.url, 'embedded', inFlight);
      say(`  embedded, ${inFlight} in flight: ${r.roundTripsPerSecond} ops/s, p50 ${r.latencyMs.p50} ms`);
      embedded.push(r);
    }
    const externalUrl = process.env['MONGO_URL'];
    /** @type {import('./lib/mongo-round-trips').MongoRoundTripResult[] | undefined} */
    let external;
    if (externalUrl) {
      external = [];
      for (const inFlight of [1, 64]) {
        const r = await mongoRun(externalUrl, 'MONGO_URL', inFlight);
        say(`  MONGO_URL, ${inFlight} in flight: ${r.roundTripsPerSecond} ops/s, p50 ${r.latencyMs.p50} ms`);
        external.push(r);
      }
    } else {
      say('  (set MONGO_URL to compare with a real MongoDB)');
    }

    const cpus = os.cpus();
    const report = buildReport({
      startedAt,
      machine: { cpus: cpus.length, cpuModel: cpus[0]?.model.trim() ?? 'unknown', memoryMb: Math.round(os.totalmem() / 2 ** 20), node: process.version, platform: `${os.platform()} ${os.release()}` },
      options: { ...options, help: undefined },
      topology,
      baseline: { k1, k64, k1Idle },
      sas: { k1: sasK1, k64: sasK64 },
      roles,
      preload: preloaded,
      scaling,
      slowScaling,
      recovery,
      cluster,
      mongo: { embedded, ...(external ? { external } : {}) },
    });
    say(`\nstopping ... (${elapsed()} in all)`);
    await cleanup.runAll();

    const resultsDir = join(__dirname, 'results');
    mkdirSync(resultsDir, { recursive: true });
    const file = join(resultsDir, 'latest.json');
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    rmSync(logDir, { recursive: true, force: true }); // kept only when a run fails, for diagnosis
    say(`\n${renderReport(report)}\n\nResults written to ${file}`);
    return 0;
  } catch (error) {
    // Ctrl-C stops the processes under the running phase, which then fails: that is no error.
    if (cleanup.interruptedBy) return cleanup.interruptedBy === 'SIGINT' ? 130 : 143;
    console.error(`\nThe benchmark could not run: ${error instanceof Error ? error.message : String(error)}`);
    console.error(`Everything it started is stopped before it exits. Service logs (if it got that far): ${logDir}`);
    return 1;
  } finally {
    await cleanup.runAll();
  }
}

/**
 * `--profile`: where the system's CPU goes, instead of the figures.
 * @param {import('./lib/parse-args').BenchOptions} options
 * @param {string} runId
 * @param {string} logDir
 * @param {CleanupStack} cleanup
 * @returns {Promise<number>}
 */
async function profileOnly(options, runId, logDir, cleanup) {
  say('\nprofiling: the system in the default topology, every service and the embedded MongoDB under the CPU profiler');
  const result = await runProfile({ options, runId, logDir, say, cleanup });
  await cleanup.runAll();
  const resultsDir = join(__dirname, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, 'profile.json');
  writeFileSync(file, `${JSON.stringify({ startedAt: new Date().toISOString(), statusEvents: options.statusEvents, ...result }, null, 2)}\n`);
  rmSync(logDir, { recursive: true, force: true });
  say(`\n${renderProfile(result)}\nResults written to ${file}`);
  return 0;
}

/**
 * The system's processes in words, e.g. `10 processes: remote-sim, 1 agent-inventory, ...`.
 * @param {BenchSystem} bench
 */
function describeTopology(bench) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  for (const p of bench.system.all) {
    const role = p.name.replace(/-\d+$/, '');
    counts.set(role, (counts.get(role) ?? 0) + 1);
  }
  const parts = [...counts].map(([role, n]) => `${n} ${role}`);
  return `${bench.system.all.length} service processes (${parts.join(', ')}), embedded MongoDB and Redis each their own process`;
}

/**
 * Fails in the first second, with the fix, when the run could not get far: no redis-server, or
 * the services or the embedded MongoDB not built. Each message says what to do.
 */
function preflight() {
  if (!findOnPath('redis-server')) {
    throw new Error('redis-server is not on PATH; the benchmark starts its own private Redis. Install it (Debian: apt-get install redis-server).');
  }
  const root = findWorkspaceRoot(__dirname);
  for (const service of ['remote-sim', 'agent', 'scheduler', 'supervisor', 'submission']) serviceScript(root, service);
  locateEmbeddedMongoCli();
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
