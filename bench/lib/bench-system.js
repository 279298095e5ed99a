// @ts-check
'use strict';

const { performance } = require('node:perf_hooks');
const { MongoClient } = require('mongodb');
const { SasClient } = require('@sas/client');
const { join } = require('node:path');
const { LocalSystem, findWorkspaceRoot, serviceScript } = require('@sas/stack');
const { ClosedLoop } = require('./closed-loop');
const { latencyStats } = require('./latency-stats');
const { waitUntil } = require('./wait-until');
const { windowFigures } = require('./window-figures');

/**
 * The first orders after a start or an idle spell pay for JIT compilation and connection set-up
 * in every process; at 1 in flight, one order would not absorb that.
 */
const MIN_WARMUP_ORDERS = 10;

/**
 * @typedef {object} BenchSystemOptions
 * @property {{ url: string, pid: () => number | undefined }} redis the private Redis
 * @property {{ url: string, kind: string, pid: () => number | undefined }} mongo the MongoDB the services use
 * @property {string} name names the database, the queue prefix, the reply queue and the orders
 * @property {import('@sas/stack').SystemTopology} [topology] default: LocalSystem's (1 per agent, 2 schedulers, 2 supervisors, 1 submission)
 * @property {Partial<Record<string, NodeJS.ProcessEnv>>} [roleEnv] extra environment per role
 * @property {string} logDir one log file per service process
 * @property {number} stallMs a run fails when no order finished for this long
 * @property {'final' | 'all'} statusEvents the status events every order asks for (decision 59)
 * @property {boolean} [sharedCore] the core roles as sas up runs them: submission, a scheduler and a supervisor in
 *   one process (core-1) and the second scheduler and supervisor in another (core-2); `topology` is then ignored
 * @property {boolean} [singleCore] with `sharedCore`: core-1 only, one scheduler and one supervisor, and the three
 *   agents in one process, as `sas up` runs them by default
 * @property {(line: string) => void} say
 * @property {import('./cleanup-stack').CleanupStack} cleanup releases the system on Ctrl-C and on failure
 */

/**
 * @typedef {import('./window-figures').WindowFigures & {
 *   inFlight: number,
 *   warmupSeconds: number,
 *   storeLatencyMs: import('./latency-stats').LatencyStats,
 * }} ClosedLoopFigures
 */

/**
 * The whole system as real processes (LocalSystem), with the benchmark as its application: a
 * SasClient that submits orders and receives their status events, and a MongoDB client that
 * reads the stored documents after a run. One instance serves several runs in a row.
 */
class BenchSystem {
  /** @param {BenchSystemOptions} options */
  static async start(options) {
    const { redis, mongo, name, cleanup, say } = options;
    cleanup.throwIfInterrupted();
    const env = { REDIS_URL: redis.url, MONGO_URL: mongo.url, MONGO_DB: name, QUEUE_PREFIX: name, LOG_LEVEL: 'info' };
    const root = findWorkspaceRoot();
    const core = join(root, 'tools', 'cli', 'dist', 'up', 'core-main.js');
    const system = await LocalSystem.start({
      root,
      script: (role) => (role === 'core' ? core : serviceScript(root, role)),
      env,
      // sas up's default (singleCore) also serves the three built-in agents from one process (decision 131).
      topology: options.sharedCore
        ? { submission: 0, schedulers: 0, supervisors: 0, ...(options.singleCore ? { agents: { 'inventory+payment+shipping': 1 } } : {}) }
        : options.topology,
      roleEnv: options.roleEnv,
      logDir: options.logDir,
      log: (msg) => say(`  ${msg}`),
    });
    const stopSystem = cleanup.push(`the system ${name}`, () => system.stop());
    if (options.sharedCore) {
      await system.spawn('core');
      if (!options.singleCore) await system.spawn('core', { SAS_ROLES: 'scheduler,supervisor' });
    }
    const sas = new SasClient({ redisUrl: redis.url, prefix: name, replyTo: `${name}.status`, statusEvents: options.statusEvents });
    const closeSas = cleanup.push(`the SasClient of ${name}`, () => sas.close());
    const client = await MongoClient.connect(mongo.url, { serverSelectionTimeoutMS: 10_000 });
    const closeClient = cleanup.push(`the MongoDB client of ${name}`, () => client.close());
    return new BenchSystem(options, system, sas, client, async () => {
      await closeClient();
      await closeSas();
      await stopSystem();
    });
  }

  /**
   * @private
   * @param {BenchSystemOptions} options
   * @param {import('@sas/stack').LocalSystem} system
   * @param {SasClient} sas
   * @param {MongoClient} client
   * @param {() => Promise<void>} stop
   */
  constructor(options, system, sas, client, stop) {
    this.options = options;
    this.system = system;
    this.sas = sas;
    this.processes = client.db(options.name).collection('processes');
    this.stop = stop;
    this.runs = 0;
  }

  /** The database the services write to (the preload goes there). */
  get dbName() {
    return this.options.name;
  }

  /** Sampled processes: every service, MongoDB, Redis and this driver, each with its role. */
  sampledProcesses() {
    const { mongo, redis } = this.options;
    return [
      ...this.system.all.map((p) => ({ name: p.name, role: p.name.replace(/-\d+$/, ''), pid: () => p.pid })),
      { name: `mongodb (${mongo.kind})`, role: `mongodb (${mongo.kind})`, pid: mongo.pid },
      { name: 'redis', role: 'redis', pid: redis.pid },
      { name: 'bench driver', role: 'bench driver', pid: () => process.pid },
    ];
  }

  /**
   * Runs `orders` orders through a closed loop of `inFlight`, unmeasured. A fresh system gets
   * faster for its first several hundred orders (V8 optimises each process's hot functions only
   * after many calls), so without this the first figures measured would be slower for that reason
   * alone, and every later figure compared with them would look better than it is.
   *
   * @param {{ orders: number, inFlight: number }} run
   */
  async warmUp({ orders, inFlight }) {
    const { say, cleanup, stallMs, logDir } = this.options;
    const loop = new ClosedLoop({ sas: this.sas, idPrefix: `${this.options.name}-w${++this.runs}`, inFlight });
    await loop.start();
    const t0 = performance.now();
    let lastReport = t0;
    await waitUntil(() => {
      loop.check(stallMs, logDir);
      const now = performance.now();
      if (now - lastReport >= 2000) {
        lastReport = now;
        say(`  warming up: ${loop.completions.length}/${orders} orders, ${((now - t0) / 1000).toFixed(0)} s`);
      }
      return loop.completions.length >= orders;
    }, { timeoutMs: Number.MAX_SAFE_INTEGER, intervalMs: 20, description: `${orders} warm-up orders`, signal: cleanup.signal }); // a stall ends it
    await loop.stop({ stallMs, logHint: logDir, signal: cleanup.signal });
    return { orders: loop.completions.length, seconds: Math.round(performance.now() - t0) / 1000 };
  }

  /**
   * Runs a closed loop of `inFlight` orders: a warm-up, then a measured window, then a drain.
   * The warm-up lasts `warmupMs` and at least until `inFlight` orders (and no fewer than
   * {@link MIN_WARMUP_ORDERS}) have finished, so the loop has turned over once (queues filled,
   * every process past its first requests) however slow the machine is. The window, likewise,
   * lasts `durationMs` and until `inFlight` orders finished inside it, so a rate is never taken
   * over less than one turnover of the loop. With `sampler`, memory and CPU are sampled over the
   * measured window exactly, so CPU per order divides by the orders of that window.
   *
   * @param {{ label: string, inFlight: number, warmupMs: number, durationMs: number, sampler?: { start(): void, stop(): unknown } }} run
   * @returns {Promise<ClosedLoopFigures>}
   */
  async closedLoop({ label, inFlight, warmupMs, durationMs, sampler }) {
    const { say, cleanup, stallMs, logDir } = this.options;
    const loop = new ClosedLoop({ sas: this.sas, idPrefix: `${this.options.name}-r${++this.runs}`, inFlight });
    await loop.start();
    const t0 = performance.now();
    /** @type {number | undefined} */
    let windowStart;
    let finishedBeforeWindow = 0;
    let lastReport = t0;
    try {
      await waitUntil(() => {
        loop.check(stallMs, logDir);
        const now = performance.now();
        if (windowStart === undefined && now - t0 >= warmupMs && loop.completions.length >= Math.max(inFlight, MIN_WARMUP_ORDERS)) {
          windowStart = now;
          finishedBeforeWindow = loop.completions.length;
          sampler?.start();
        }
        if (now - lastReport >= 2000) {
          lastReport = now;
          const phase = windowStart === undefined ? 'warm-up' : `measuring ${((now - windowStart) / 1000).toFixed(0)}/${(durationMs / 1000).toFixed(0)} s`;
          say(`  ${label}: ${((now - t0) / 1000).toFixed(0)} s, ${phase}, ${loop.completions.length} orders finished`);
        }
        return windowStart !== undefined && now - windowStart >= durationMs && loop.completions.length - finishedBeforeWindow >= inFlight;
      }, { timeoutMs: warmupMs + durationMs + 4 * stallMs, intervalMs: 20, description: `${label} to end`, signal: cleanup.signal });
    } finally {
      sampler?.stop();
    }
    const start = windowStart ?? t0;
    const end = performance.now();
    await loop.stop({ stallMs, logHint: logDir, signal: cleanup.signal });
    const figures = windowFigures(loop.completions, start, end);
    if (figures.completed === 0) {
      throw new Error(`${label}: no order reached Processed in the ${((end - start) / 1000).toFixed(1)} s window (other final states: ${JSON.stringify(figures.notProcessed)}); see the service logs in ${logDir}`);
    }
    return { inFlight, warmupSeconds: Math.round(start - t0) / 1000, ...figures, storeLatencyMs: await this.storeLatency(figures.orderIds) };
  }

  /**
   * createdAt → updatedAt of the stored Processed documents: the system's own view of an order,
   * without the submission queue and the status event that the application's view includes.
   * @param {readonly string[]} orderIds
   */
  async storeLatency(orderIds) {
    const docs = await this.processes.find({ orderId: { $in: [...orderIds] }, state: 'Processed' }, { projection: { createdAt: 1, updatedAt: 1 } }).toArray();
    return latencyStats(docs.map((d) => toMs(d['updatedAt']) - toMs(d['createdAt'])));
  }

  /**
   * Sets remote-sim's latency for one remote service (what an agent's HTTP call waits before its answer).
   * @param {string} service `inventory`, `payment` or `shipping`
   * @param {number} latencyMs
   */
  async setRemoteLatency(service, latencyMs) {
    const response = await fetch(`${this.system.remoteSimUrl}/admin/faults/${service}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ latencyMs }),
    });
    if (!response.ok) throw new Error(`remote-sim refused latency ${latencyMs} ms for ${service}: ${response.status} ${await response.text()}`);
  }
}

/**
 * Milliseconds since the epoch of a stored date; throws when a document lacks one, since the
 * latencies would otherwise be silently wrong.
 * @param {unknown} value
 */
function toMs(value) {
  if (value instanceof Date) return value.getTime();
  throw new Error(`Expected a stored Date, got ${JSON.stringify(value)}; the processes collection does not hold what the benchmark expects`);
}

module.exports = { BenchSystem };
