// @ts-check
'use strict';

/**
 * @typedef {object} BenchOptions
 * @property {number} baselineSeconds measured window of each raw BullMQ configuration
 * @property {number} warmupSeconds unmeasured lead-in before each window (connections, JIT, queues filling)
 * @property {number} windowSeconds measured window of each closed-loop run of the system (1 and 64 in flight)
 * @property {number} scalingSeconds measured window of each replica count of the scaling run
 * @property {number} mongoSeconds measured window of each findOneAndUpdate configuration
 * @property {number} systemWarmupOrders orders run through a fresh system, unmeasured, before its first figure
 * @property {number} stallSeconds a run fails when no order finished for this long
 * @property {number} preload finished processes (with their history) stored before the runs are repeated; 0 skips them
 * @property {'final' | 'all'} statusEvents the status events the benchmark's orders ask for (decision 59)
 * @property {boolean} quick shorter windows and a smaller preload, for a before/after check
 * @property {boolean} peers instead of the figures: sas next to Restate, DBOS and a hand-rolled BullMQ chain (issue 24)
 * @property {string[]} systems with --peers, which of them to run (empty: all)
 * @property {boolean} profile only profile the system's processes at 1 and 64 in flight (where their CPU goes)
 * @property {boolean} help print usage and exit
 */

/** Defaults chosen so a full run stays within about 3 minutes on a 2-core machine. */
const DEFAULTS = Object.freeze({
  baselineSeconds: 3,
  warmupSeconds: 2,
  windowSeconds: 8,
  scalingSeconds: 6,
  mongoSeconds: 2,
  systemWarmupOrders: 1000,
  stallSeconds: 30,
  preload: 100_000,
  statusEvents: /** @type {'final' | 'all'} */ ('final'),
  quick: false,
  peers: false,
  systems: /** @type {string[]} */ ([]),
  profile: false,
  help: false,
});

/** What `--quick` changes (flags given explicitly still win). */
const QUICK = Object.freeze({ baselineSeconds: 1, warmupSeconds: 1, windowSeconds: 2, scalingSeconds: 2, mongoSeconds: 0.5, systemWarmupOrders: 200, preload: 5_000 });

/** Printed by `--help` and after a bad argument. */
const USAGE = `usage: node bench/run-benchmarks.js [options]   (or: pnpm bench -- [options])

  --baseline-seconds S   measured window of each raw BullMQ request/reply run (default ${DEFAULTS.baselineSeconds})
  --warmup-seconds S     unmeasured warm-up before each window (default ${DEFAULTS.warmupSeconds})
  --window-seconds S     measured window of each closed-loop run, 1 and 64 orders in flight (default ${DEFAULTS.windowSeconds})
  --scaling-seconds S    measured window of each agent replica count (1, 2, 4) (default ${DEFAULTS.scalingSeconds})
  --mongo-seconds S      measured window of each findOneAndUpdate run (default ${DEFAULTS.mongoSeconds})
  --system-warmup N      orders run through the fresh system, unmeasured, before its first figure: its
                         processes get faster for their first few hundred orders (default ${DEFAULTS.systemWarmupOrders})
  --stall-seconds S      a run fails when no order finished for S seconds (default ${DEFAULTS.stallSeconds})
  --preload N            finished processes with history stored before the 1 and 64 in-flight runs are
                         repeated, to show the cost stays flat as history grows; 0 skips it (default ${DEFAULTS.preload})
  --status-events E      the status events each order asks for: final (Received and the outcome, as an
                         application that only waits for outcomes would) or all (default ${DEFAULTS.statusEvents})
  --quick                ${QUICK.warmupSeconds} s warm-up, ${QUICK.windowSeconds} s windows, ${QUICK.systemWarmupOrders} warm-up orders, preload ${QUICK.preload}
                         (explicit flags win)
  --profile              instead of the figures: every service and the embedded MongoDB under V8's CPU
                         profiler for the windows at 1 and 64 in flight, and where their CPU went, by
                         library (our code, MongoDB driver, BullMQ + ioredis, zod, pino, ...); writes
                         bench/results/profile.json. Profiling slows the processes: no rate it shows is a figure
  --peers                instead of the figures: the same 3-step order on sas, Restate, DBOS and a
                         hand-rolled BullMQ chain, one after the other (installs bench/peers' own
                         packages with npm ci on first use); p50 at 1 in flight, orders/s at 64, CPU
                         per order and memory (PSS) of every process, sas ÷ each; writes
                         bench/results/peers.json. With --quick: 200 warm-up orders, 50 at 1 in flight, 5 s at 64
  --systems LIST         with --peers: only these, comma-separated (bullmq-chain,restate,dbos,sas,sas-shared,sas-up,sas-up-in-memory);
                         sas-shared is sas with submission, a scheduler and a supervisor in one process and
                         the other scheduler and supervisor in a second (sas up's core); sas-up is that one
                         process alone (one scheduler, one supervisor) with the three agents in one process,
                         sas up's default, single-instance like the peers, its MongoDB on disk as sas up keeps
                         it; sas-up-in-memory the same with MongoDB in memory (what durability costs); none of
                         these three is in the default list
  --help                 this text

Set MONGO_URL to also measure findOneAndUpdate against that real MongoDB (as a ratio).
Results: a table on stdout and bench/results/latest.json.`;

/** @type {Record<string, keyof BenchOptions>} */
const FLAGS = {
  '--baseline-seconds': 'baselineSeconds',
  '--warmup-seconds': 'warmupSeconds',
  '--window-seconds': 'windowSeconds',
  '--scaling-seconds': 'scalingSeconds',
  '--mongo-seconds': 'mongoSeconds',
  '--system-warmup': 'systemWarmupOrders',
  '--stall-seconds': 'stallSeconds',
  '--preload': 'preload',
};

/**
 * Parses the command line (`--preload 500` or `--preload=500`). Throws an error naming the bad
 * argument and what was expected, so a typo fails before anything is started.
 *
 * @param {readonly string[]} argv arguments after the script name
 * @returns {BenchOptions}
 */
function parseArgs(argv) {
  /** @type {BenchOptions} */
  const options = { ...DEFAULTS };
  /** @type {Set<string>} */
  const given = new Set();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') continue; // `pnpm bench -- --quick` may pass the separator through
    if (arg === '--help' || arg === '-h') {
      options.help = true;
      continue;
    }
    if (arg === '--quick') {
      options.quick = true;
      continue;
    }
    if (arg === '--peers') {
      options.peers = true;
      continue;
    }
    if (arg === '--profile') {
      options.profile = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    if (flag === '--status-events') {
      const raw = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (raw !== 'final' && raw !== 'all') throw new Error(`--status-events needs final or all (got '${String(raw)}').\n${USAGE}`);
      options.statusEvents = raw;
      continue;
    }
    if (flag === '--systems') {
      const raw = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      const systems = String(raw ?? '').split(',').filter((x) => x !== '');
      const known = ['bullmq-chain', 'restate', 'dbos', 'sas', 'sas-shared', 'sas-up', 'sas-up-in-memory'];
      const unknown = systems.filter((x) => !known.includes(x));
      if (systems.length === 0 || unknown.length > 0) throw new Error(`--systems needs a comma-separated list of ${known.join(', ')} (got '${String(raw)}').\n${USAGE}`);
      options.systems = systems;
      continue;
    }
    const key = FLAGS[flag];
    if (key === undefined) throw new Error(`Unknown argument '${arg}'.\n${USAGE}`);
    const raw = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    const value = Number(raw);
    const integer = key === 'preload' || key === 'systemWarmupOrders';
    const zeroAllowed = key === 'preload' || key === 'systemWarmupOrders';
    if (raw === undefined || raw === '' || !Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed) || (integer && !Number.isInteger(value))) {
      const what = zeroAllowed ? 'whole number (0 or more)' : 'positive number';
      throw new Error(`${flag} needs a ${what} (got '${String(raw)}').\n${USAGE}`);
    }
    /** @type {Record<string, number | boolean>} */ (/** @type {unknown} */ (options))[key] = value;
    given.add(key);
  }
  if (options.quick) {
    for (const [key, value] of Object.entries(QUICK)) {
      if (!given.has(key)) /** @type {Record<string, number | boolean>} */ (/** @type {unknown} */ (options))[key] = value;
    }
  }
  return options;
}

module.exports = { parseArgs, USAGE, DEFAULTS, QUICK };
