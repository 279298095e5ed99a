#!/usr/bin/env node
// @ts-check
'use strict';
// `pnpm bench`: measures what the system costs next to a baseline measured in the same run on the
// same machine, so the numbers mean something on any machine:
//   1. raw BullMQ request/reply between this process and a responder process (1 and 64 in flight);
//   2. the whole system as real processes running N orders (orders/s, steps/s, per-order latency);
//   3. conditional findOneAndUpdate against the embedded MongoDB (and MONGO_URL's, when set);
//   4. peak memory of every process during (2).
// It reports and never judges: exit 0 when it ran, 1 with a message when something could not
// start or finish, 130 on Ctrl-C, always after stopping every process it started.

const { randomBytes } = require('node:crypto');
const { mkdirSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { findOnPath, findWorkspaceRoot, locateEmbeddedMongoCli, serviceScript, startEmbeddedMongo, startRedis } = require('@sas/stack');
const { CleanupStack } = require('./lib/cleanup-stack');
const { measureMongoRoundTrips } = require('./lib/mongo-round-trips');
const { parseArgs, USAGE } = require('./lib/parse-args');
const { measureRawRoundTrips } = require('./lib/raw-round-trips');
const { renderReport } = require('./lib/render-report');
const { childPidsMatching } = require('./lib/process-sampler');
const { measureSystemOrders } = require('./lib/system-orders');
const { preloadHistory } = require('./lib/preload-history');

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
  const logDir = join(os.tmpdir(), 'sas-bench', runId);
  try {
    preflight();
    say(`sas bench ${runId}: ${options.orders} orders; service logs in ${logDir}`);
    const redis = await startRedis();
    cleanup.push('redis-server', () => redis.stop());
    say(`Redis: private redis-server at ${redis.url}`);

    say(`\n[1/4] baseline: raw BullMQ request/reply, ${options.warmupSeconds} s warm-up + ${options.baselineSeconds} s per setting`);
    const baselineRun = (/** @type {number} */ inFlight) =>
      measureRawRoundTrips({ redisPort: redis.port, prefix: `bench-raw-${runId}`, inFlight, warmupMs, durationMs: options.baselineSeconds * 1000, say, signal: cleanup.signal });
    const inFlight1 = await baselineRun(1);
    say(`  1 in flight: ${inFlight1.roundTripsPerSecond} rt/s, p50 ${inFlight1.latencyMs.p50} ms, p95 ${inFlight1.latencyMs.p95} ms`);
    cleanup.throwIfInterrupted();
    const inFlight64 = await baselineRun(64);
    say(`  64 in flight: ${inFlight64.roundTripsPerSecond} rt/s, p50 ${inFlight64.latencyMs.p50} ms, p95 ${inFlight64.latencyMs.p95} ms`);

    cleanup.throwIfInterrupted();
    // The system always runs on the embedded server, whatever MONGO_URL says: it is what CI and the
    // demo use on machines like this one, and its memory belongs in the table. MONGO_URL only adds
    // a comparison in phase 3.
    const mongo = await startEmbeddedMongo({ reason: 'the benchmark measures the embedded server' });
    cleanup.push('the embedded MongoDB', () => mongo.stop());
    const cli = locateEmbeddedMongoCli();
    const mongoPid = () => childPidsMatching(process.pid, cli)[0];
    say(`MongoDB: embedded server at ${mongo.url} (pid ${String(mongoPid() ?? 'unknown')})`);

    say(`\n[2/4] system: ${options.orders} orders end to end (and [4/4] memory: every process's RSS every 200 ms)`);
    const systemResult = await measureSystemOrders({
      redis: { url: redis.url, port: redis.port, pid: () => redis.pid },
      mongo: { url: mongo.url, kind: mongo.kind, pid: mongoPid },
      runId,
      orders: options.orders,
      timeoutMs: options.systemTimeoutSeconds * 1000,
      logDir,
      say,
      cleanup,
    });
    say(`  ${systemResult.ordersPerSecond} orders/s, ${systemResult.stepsPerSecond} steps/s, per-order p50 ${systemResult.latencyMs.p50} ms, p95 ${systemResult.latencyMs.p95} ms`);

    cleanup.throwIfInterrupted();
    /** @type {{ preload: import('./lib/preload-history').PreloadResult, system: import('./lib/system-orders').SystemOrdersResult } | undefined} */
    let preloaded;
    if (options.preload > 0) {
      // Issue 8's "flat with history": the same orders again, into a database that already holds
      // a week of finished processes; the ratios to the empty-store run should stay near 1.
      const preloadRunId = `${runId}p`;
      say(`\n[2b/4] flat with history: ${options.preload.toLocaleString('en-US')} finished processes preloaded, then the same ${options.orders} orders`);
      const preload = await preloadHistory({ url: mongo.url, dbName: `bench-${preloadRunId}`, processes: options.preload, say });
      const system = await measureSystemOrders({
        redis: { url: redis.url, port: redis.port, pid: () => redis.pid },
        mongo: { url: mongo.url, kind: mongo.kind, pid: mongoPid },
        runId: preloadRunId,
        orders: options.orders,
        timeoutMs: options.systemTimeoutSeconds * 1000,
        logDir: join(logDir, 'preloaded'),
        say,
        cleanup,
      });
      say(`  ${system.ordersPerSecond} orders/s, per-order p50 ${system.latencyMs.p50} ms, p95 ${system.latencyMs.p95} ms (empty store: ${systemResult.ordersPerSecond} orders/s, p50 ${systemResult.latencyMs.p50} ms)`);
      preloaded = { preload, system };
    }

    cleanup.throwIfInterrupted();
    say(`\n[3/4] MongoDB: conditional findOneAndUpdate, ${options.warmupSeconds} s warm-up + ${options.mongoSeconds} s per setting`);
    const mongoRun = (/** @type {string} */ url, /** @type {string} */ target, /** @type {number} */ inFlight) =>
      measureMongoRoundTrips({ url, target, dbName: `bench-mongo-${runId}`, inFlight, warmupMs, durationMs: options.mongoSeconds * 1000, signal: cleanup.signal });
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

    const { memoryByRole, ...systemNumbers } = systemResult;
    const memory = Object.fromEntries(
      Object.entries(memoryByRole).map(([role, m]) => [
        role,
        { ...m, peakPerResponder: inFlight64.responderPeakKb > 0 ? Math.round((m.peakKb / inFlight64.responderPeakKb) * 100) / 100 : 0 },
      ]),
    );
    const cpus = os.cpus();
    const report = {
      startedAt,
      machine: { cpus: cpus.length, cpuModel: cpus[0]?.model.trim() ?? 'unknown', memoryMb: Math.round(os.totalmem() / 2 ** 20), node: process.version, platform: `${os.platform()} ${os.release()}` },
      options: { ...options, help: undefined },
      baseline: { inFlight1, inFlight64 },
      system: {
        ...systemNumbers,
        mongo: mongo.kind,
        stepsPerBaselineRoundTrip: Math.round((systemResult.stepsPerSecond / inFlight64.roundTripsPerSecond) * 1000) / 1000,
      },
      mongo: { embedded, ...(external ? { external } : {}) },
      memory,
      ...(preloaded
        ? {
            preload: { ...preloaded.preload, system: (({ memoryByRole: _unused, ...numbers }) => numbers)(preloaded.system) },
            ratios: {
              preloadedLatency: ratioOf(preloaded.system.latencyMs.p50, systemResult.latencyMs.p50),
              preloadedLatencyP95: ratioOf(preloaded.system.latencyMs.p95, systemResult.latencyMs.p95),
              preloadedThroughput: ratioOf(preloaded.system.ordersPerSecond, systemResult.ordersPerSecond),
            },
          }
        : {}),
    };
    say('\nstopping ...');
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

/** a ÷ b to three decimals (0 when b is 0). @param {number} a @param {number} b */
function ratioOf(a, b) {
  return b > 0 ? Math.round((a / b) * 1000) / 1000 : 0;
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
