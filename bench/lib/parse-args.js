// @ts-check
'use strict';

/**
 * @typedef {object} BenchOptions
 * @property {number} orders orders submitted at once in the system benchmark
 * @property {number} baselineSeconds measured window of each raw BullMQ configuration
 * @property {number} warmupSeconds unmeasured lead-in before each window (connections, JIT)
 * @property {number} mongoSeconds measured window of each findOneAndUpdate configuration
 * @property {number} systemTimeoutSeconds how long the system may take before the run is called failed
 * @property {number} preload finished processes (with their history) stored before the second system run; 0 skips it
 * @property {boolean} quick shorter windows, fewer orders and a smaller preload, for a before/after check
 * @property {boolean} help print usage and exit
 */

/** Defaults chosen so a full run stays within a few minutes on a 2-core machine (the preload takes most). */
const DEFAULTS = Object.freeze({
  orders: 300,
  baselineSeconds: 5,
  warmupSeconds: 1,
  mongoSeconds: 3,
  systemTimeoutSeconds: 90,
  preload: 100_000,
  quick: false,
  help: false,
});

/** What `--quick` changes (flags given explicitly still win). */
const QUICK = Object.freeze({ orders: 100, baselineSeconds: 2, mongoSeconds: 1, preload: 10_000 });

/** Printed by `--help` and after a bad argument. */
const USAGE = `usage: node bench/run-benchmarks.js [options]   (or: pnpm bench -- [options])

  --orders N             orders submitted at once to the whole system (default ${DEFAULTS.orders})
  --baseline-seconds S   measured window of each raw BullMQ request/reply run (default ${DEFAULTS.baselineSeconds})
  --warmup-seconds S     unmeasured warm-up before each window (default ${DEFAULTS.warmupSeconds})
  --mongo-seconds S      measured window of each findOneAndUpdate run (default ${DEFAULTS.mongoSeconds})
  --system-timeout S     give up on the orders after S seconds (default ${DEFAULTS.systemTimeoutSeconds})
  --preload N            finished processes with history stored before a second system run, to show the
                         cost stays flat as history grows; 0 skips that run (default ${DEFAULTS.preload})
  --quick                ${QUICK.orders} orders, ${QUICK.baselineSeconds} s / ${QUICK.mongoSeconds} s windows, preload ${QUICK.preload} (explicit flags win)
  --help                 this text

Set MONGO_URL to also measure findOneAndUpdate against that real MongoDB (as a ratio).
Results: a table on stdout and bench/results/latest.json.`;

/** @type {Record<string, keyof BenchOptions>} */
const FLAGS = {
  '--orders': 'orders',
  '--baseline-seconds': 'baselineSeconds',
  '--warmup-seconds': 'warmupSeconds',
  '--mongo-seconds': 'mongoSeconds',
  '--system-timeout': 'systemTimeoutSeconds',
  '--preload': 'preload',
};

/**
 * Parses the command line (`--orders 500` or `--orders=500`). Throws an error naming the bad
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
    if (arg === '--') continue; // `pnpm bench -- --orders 10` may pass the separator through
    if (arg === '--help' || arg === '-h') {
      options.help = true;
      continue;
    }
    if (arg === '--quick') {
      options.quick = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const key = FLAGS[flag];
    if (key === undefined) throw new Error(`Unknown argument '${arg}'.\n${USAGE}`);
    const raw = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    const value = Number(raw);
    const integer = key === 'orders' || key === 'preload';
    const zeroAllowed = key === 'preload';
    if (raw === undefined || raw === '' || !Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed) || (integer && !Number.isInteger(value))) {
      const what = zeroAllowed ? 'whole number (0 or more)' : integer ? 'positive whole number' : 'positive number';
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
