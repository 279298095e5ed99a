// @ts-check
'use strict';

const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { ServiceProcess, findWorkspaceRoot, serviceScript } = require('@sas/stack');
const { measurePeer } = require('./peer-loop');
const { renderPeerTable } = require('./peer-table');

/**
 * @typedef {object} ScopedCleanup what one system started, released when its turn ends (and on Ctrl-C by the run's CleanupStack)
 * @property {(name: string, close: () => Promise<unknown>) => () => Promise<void>} push
 * @property {() => void} throwIfInterrupted
 * @property {AbortSignal} signal
 */

/**
 * @typedef {object} PeerContext
 * @property {string} remoteUrl the remote-sim the peer's steps call
 * @property {string} peersDir bench/peers, where the peers' own packages are installed
 * @property {string} runId
 * @property {string} logDir
 * @property {ScopedCleanup} cleanup
 * @property {AbortSignal} signal
 * @property {(line: string) => void} say
 */

/**
 * @typedef {object} StartedPeer
 * @property {string[]} settings how it runs: every setting that differs from its defaults, and its work per order
 * @property {() => import('./process-sampler').SampledProcess[]} processes
 * @property {(orderId: string) => Promise<void>} runOrder
 * @property {import('./work-counters').WorkCounters} [work] counters of the system's Redis (and MongoDB), for the work per order
 */

/** Issue 24's run: 1,000 warm-up orders, 200 at 1 in flight, 64 in flight for 15 s. */
const FULL_RUN = Object.freeze({ warmupOrders: 1000, serialOrders: 200, windowSeconds: 15, inFlight: 64, stallMs: 30_000 });
/** `--quick`: a smoke run, about a quarter of the time; its figures are rougher. */
const QUICK_RUN = Object.freeze({ ...FULL_RUN, warmupOrders: 200, serialOrders: 50, windowSeconds: 5 });

/** The systems in the order they run; `--systems` picks some of them by key. */
const SYSTEMS = Object.freeze(['bullmq-chain', 'restate', 'dbos', 'sas', 'sas-shared', 'sas-up', 'sas-up-in-memory']);
/** Run only when `--systems` names them: sas itself in another layout, not a peer. */
const ON_REQUEST = Object.freeze(['sas-shared', 'sas-up', 'sas-up-in-memory']);

/**
 * `pnpm bench -- --peers`: the three peers and sas one after the other, each started fresh, measured
 * the same way (bench/lib/peer-loop.js) and stopped before the next starts. A system that cannot
 * start or finish gets a row saying why. Writes bench/results/peers.json; returns the table.
 * @param {{ options: import('./parse-args').BenchOptions, runId: string, logDir: string, say: (line: string) => void, cleanup: import('./cleanup-stack').CleanupStack }} run
 * @returns {Promise<string>}
 */
async function runPeers({ options, runId, logDir, say, cleanup }) {
  const startedAt = new Date().toISOString();
  const root = findWorkspaceRoot(__dirname);
  const peersDir = join(root, 'bench', 'peers');
  const settings = options.quick ? QUICK_RUN : FULL_RUN;
  const statusLabel = options.statusEvents === 'final' ? 'final status events only' : 'all status events';
  const chosen = SYSTEMS.filter((s) => (options.systems.length === 0 ? !ON_REQUEST.includes(s) : options.systems.includes(s)));
  say(`peers: ${chosen.join(', ')}; per system ${settings.warmupOrders} warm-up orders at ${settings.inFlight} in flight, ${settings.serialOrders} at 1 in flight, ${settings.inFlight} in flight for ${settings.windowSeconds} s`);
  const installError = chosen.some((s) => !s.startsWith('sas')) ? installPeers(peersDir, say) : undefined;

  /** @type {Record<string, { label: string, start: (ctx: PeerContext) => Promise<StartedPeer> }>} */
  const starters = {
    'bullmq-chain': { label: 'BullMQ chain', start: (ctx) => { const { startBullmqChain } = require('./peer-bullmq-chain'); return startBullmqChain(ctx); } },
    restate: { label: 'Restate', start: (ctx) => { const { startRestate } = require('./peer-restate'); return startRestate(ctx); } },
    dbos: { label: 'DBOS', start: (ctx) => { const { startDbos } = require('./peer-dbos'); return startDbos(ctx); } },
    sas: { label: `sas (${statusLabel})`, start: (ctx) => { const { startSas } = require('./peer-sas'); return startSas(ctx, { statusEvents: options.statusEvents, stallMs: settings.stallMs }); } },
    'sas-shared': { label: `sas, core roles in 2 processes (${statusLabel})`, start: (ctx) => { const { startSas } = require('./peer-sas'); return startSas(ctx, { statusEvents: options.statusEvents, stallMs: settings.stallMs, sharedCore: true }); } },
    'sas-up': { label: `sas as sas up runs it: one core process (one scheduler, one supervisor), one agents process, MongoDB on disk (${statusLabel})`, start: (ctx) => { const { startSas } = require('./peer-sas'); return startSas(ctx, { statusEvents: options.statusEvents, stallMs: settings.stallMs, sharedCore: true, singleCore: true, durable: true }); } },
    'sas-up-in-memory': { label: `sas as sas up --in-memory runs it: the same, MongoDB in memory (${statusLabel})`, start: (ctx) => { const { startSas } = require('./peer-sas'); return startSas(ctx, { statusEvents: options.statusEvents, stallMs: settings.stallMs, sharedCore: true, singleCore: true }); } },
  };

  /** @type {import('./peer-table').PeerRow[]} */
  const rows = [];
  for (const key of chosen) {
    cleanup.throwIfInterrupted();
    const starter = starters[key];
    if (!starter) throw new Error(`no system '${key}' (parse-args accepts only ${SYSTEMS.join(', ')})`);
    const { label, start } = starter;
    // The ratios divide by sas in its default layout, or by the first layout run when that one is not.
    const isSas = key === (chosen.includes('sas') ? 'sas' : chosen.find((k) => k.startsWith('sas')));
    const isSasLayout = key.startsWith('sas') && !isSas;
    // sas in either layout starts its own remote-sim with its system.
    const ownRemote = key.startsWith('sas');
    const loadBefore = os.loadavg()[0] ?? 0;
    say(`\n[peers] ${label} (load ${loadBefore.toFixed(2)})`);
    /** @type {(() => Promise<void>)[]} */
    const releases = [];
    /** @type {ScopedCleanup} */
    const scoped = {
      push: (name, close) => {
        const release = cleanup.push(name, close);
        releases.push(release);
        return release;
      },
      throwIfInterrupted: () => cleanup.throwIfInterrupted(),
      signal: cleanup.signal,
    };
    /** @type {import('./peer-table').PeerRow} */
    let row;
    try {
      if (!ownRemote && installError) throw new Error(installError);
      const remoteUrl = ownRemote ? '' : await startRemoteSim(root, scoped, join(logDir, `${key}-remote-sim.log`));
      const started = await start({ remoteUrl, peersDir, runId, logDir, cleanup: scoped, signal: cleanup.signal, say });
      for (const line of started.settings) say(`    ${line}`);
      const measured = await measurePeer(started, { ...settings, idPrefix: `${key}-${runId}`, say, signal: cleanup.signal });
      row = { system: label, isSas, isSasLayout, figures: measured.figures, processes: measured.processes, byRole: measured.byRole, ...(measured.work ? { work: measured.work } : {}), settings: started.settings, loadBefore, loadAfter: 0 };
    } catch (error) {
      if (cleanup.interruptedBy) throw error;
      const message = error instanceof Error ? error.message : String(error);
      say(`    could not run ${label}: ${message}`);
      row = { system: label, isSas, isSasLayout, error: message, processes: 0, settings: [], loadBefore, loadAfter: 0 };
    } finally {
      for (const release of releases.reverse()) await release();
    }
    row.loadAfter = os.loadavg()[0] ?? 0;
    rows.push(row);
  }

  const table = renderPeerTable(rows);
  const resultsDir = join(__dirname, '..', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, 'peers.json');
  const cpus = os.cpus();
  writeFileSync(file, `${JSON.stringify({ startedAt, finishedAt: new Date().toISOString(), machine: { cpus: cpus.length, cpuModel: cpus[0]?.model.trim() ?? 'unknown', node: process.version }, run: settings, statusEvents: options.statusEvents, rows }, null, 2)}\n`);
  return `${table}\n\nResults written to ${file}`;
}

/**
 * Installs the peers' own packages (bench/peers/package-lock.json) on first use, without their
 * install scripts (none is needed: Restate's server ships as a prebuilt binary package, and the
 * scripts that exist only report telemetry or build an optional native speed-up). Returns why it
 * failed, so every peer's row can say so, or undefined.
 * @param {string} peersDir
 * @param {(line: string) => void} say
 * @returns {string | undefined}
 */
function installPeers(peersDir, say) {
  if (existsSync(join(peersDir, 'node_modules', '.package-lock.json'))) return undefined;
  say(`installing the peers' packages: npm ci --prefix bench/peers (first use only) ...`);
  try {
    execFileSync('npm', ['ci', '--prefix', peersDir, '--no-audit', '--no-fund', '--ignore-scripts'], { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    return undefined;
  } catch (error) {
    const stderr = /** @type {{ stderr?: string }} */ (error).stderr ?? '';
    return `npm ci --prefix bench/peers failed (the peers' packages could not be installed): ${stderr.trim().split('\n').slice(-3).join(' ') || String(error)}`;
  }
}

/**
 * A fresh remote-sim for one peer, the same service at the same zero latency that sas's system
 * starts for itself. Returns its URL.
 * @param {string} root
 * @param {ScopedCleanup} cleanup
 * @param {string} logFile
 */
async function startRemoteSim(root, cleanup, logFile) {
  const sim = new ServiceProcess({ name: 'remote-sim', script: serviceScript(root, 'remote-sim'), env: { PORT: '0', LOG_LEVEL: 'info' }, logFile });
  cleanup.push('remote-sim', () => sim.stop());
  await sim.start();
  const listening = await sim.waitForLine((l) => l.json?.['msg'] === 'listening', 10_000, 'remote-sim listening');
  return String(listening.json?.['url'] ?? `http://127.0.0.1:${String(listening.json?.['port'])}`);
}

module.exports = { runPeers };
