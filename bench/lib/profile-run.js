// @ts-check
'use strict';

const { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { locateEmbeddedMongoCli, startEmbeddedMongo, startRedis } = require('@sas/stack');
const { BenchSystem } = require('./bench-system');
const { childPidsMatching, ProcessSampler, TICKS_PER_SECOND } = require('./process-sampler');
const { GROUPS, addSummaries, summarizeProfile } = require('./profile-summary');
const { waitUntil } = require('./wait-until');

/**
 * @typedef {object} RoleProfile
 * @property {string} role
 * @property {number} processes
 * @property {number} cpuMsPerOrder CPU of the role's processes in the window (from /proc, all threads), per finished order
 * @property {Record<string, number>} shares percent of the role's profiled JavaScript time per group (profile-summary's GROUPS)
 */

/**
 * @typedef {object} ProfileWindow
 * @property {number} inFlight
 * @property {number} orders orders finished in the window
 * @property {number} seconds
 * @property {RoleProfile[]} roles every profiled role, then `all` (the system without Redis)
 */

/**
 * `pnpm bench -- --profile`: the system in the benchmark's default topology with every service and
 * the embedded MongoDB under V8's CPU profiler for the measured window of a closed loop at 1 and
 * at 64 in flight, and where their CPU went, by library: the evidence behind docs/performance.md.
 * Profiling slows every process, so this mode measures nothing else; its rates are not the
 * benchmark's.
 *
 * @param {{ options: import('./parse-args').BenchOptions, runId: string, logDir: string, say: (line: string) => void, cleanup: import('./cleanup-stack').CleanupStack }} run
 * @returns {Promise<{ windows: ProfileWindow[], groups: readonly string[], profileDir: string }>} `profileDir` keeps every profile
 */
async function runProfile({ options, runId, logDir, say, cleanup }) {
  // Kept after the run: each file opens in Chrome DevTools (Performance → Load profile).
  const profileDir = mkdtempSync(join(os.tmpdir(), 'sas-profile-'));
  // Inherited by every service and by the embedded MongoDB (each spawned with this environment).
  process.env['NODE_OPTIONS'] = [process.env['NODE_OPTIONS'] ?? '', `--require ${JSON.stringify(join(__dirname, 'cpu-profile-preload.js'))}`].join(' ').trim();
  process.env['SAS_CPU_PROFILE_DIR'] = profileDir;
  const redis = await startRedis();
  cleanup.push('redis-server', () => redis.stop());
  const mongo = await startEmbeddedMongo({ reason: 'the benchmark profiles the embedded server' });
  cleanup.push('the embedded MongoDB', () => mongo.stop());
  const cli = locateEmbeddedMongoCli();
  const bench = await BenchSystem.start({
    redis: { url: redis.url, pid: () => redis.pid },
    mongo: { url: mongo.url, kind: mongo.kind, pid: () => childPidsMatching(process.pid, cli)[0] },
    stallMs: options.stallSeconds * 1000,
    statusEvents: options.statusEvents,
    say,
    cleanup,
    name: `profile-${runId}`,
    logDir,
  });
  // Only processes that loaded the preload may get SIGUSR2: for any other its default action is to exit.
  const profiled = bench.sampledProcesses().filter((p) => p.role !== 'redis' && p.role !== 'bench driver');
  if (options.systemWarmupOrders > 0) {
    const warm = await bench.warmUp({ orders: options.systemWarmupOrders, inFlight: 64 });
    say(`  warmed up: ${warm.orders} orders in ${warm.seconds} s, unmeasured`);
  }
  /** @type {ProfileWindow[]} */
  const windows = [];
  for (const inFlight of [1, 64]) {
    cleanup.throwIfInterrupted();
    /** @type {Map<number, string>} pid → role, as signalled */
    const signalled = new Map();
    const cpu = new ProcessSampler(profiled);
    let sampling = false;
    const toggle = () => {
      sampling = !sampling;
      if (sampling) cpu.start();
      else cpu.stop();
      for (const p of profiled) {
        const pid = p.pid();
        if (pid === undefined) continue;
        signalled.set(pid, p.role);
        process.kill(pid, 'SIGUSR2');
      }
    };
    const figures = await bench.closedLoop({
      label: `${inFlight} in flight, profiled`,
      inFlight,
      warmupMs: options.warmupSeconds * 1000,
      durationMs: options.windowSeconds * 1000,
      sampler: { start: toggle, stop: toggle },
    });
    await waitUntil(() => [...signalled.keys()].every((pid) => existsSync(join(profileDir, `${pid}.done`))), {
      timeoutMs: 30_000,
      intervalMs: 100,
      description: `the CPU profiles of ${signalled.size} processes in ${profileDir}`,
      signal: cleanup.signal,
    });
    /** @type {Map<string, { processes: number, summaries: ReturnType<typeof summarizeProfile>[] }>} */
    const byRole = new Map();
    for (const [pid, role] of signalled) {
      const file = join(profileDir, `${role.replace(/\W+/g, '-')}-${pid}-k${inFlight}.cpuprofile`);
      renameSync(join(profileDir, `${pid}.cpuprofile`), file);
      rmSync(join(profileDir, `${pid}.done`));
      const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')));
      const entry = byRole.get(role) ?? { processes: 0, summaries: [] };
      entry.processes += 1;
      entry.summaries.push(summary);
      byRole.set(role, entry);
    }
    const orders = figures.completed;
    /** @type {Map<string, number>} role → CPU ticks over the window */
    const ticks = new Map();
    for (const p of cpu.stop()) ticks.set(p.role, (ticks.get(p.role) ?? 0) + (p.lastCpuTicks - p.firstCpuTicks));
    ticks.set('all', [...ticks.values()].reduce((a, b) => a + b, 0));
    /** @param {string} role @param {number} processes @param {{ cpuUs: number, byGroup: Record<string, number> }} sum @returns {RoleProfile} */
    const roleProfile = (role, processes, sum) => ({
      role,
      processes,
      cpuMsPerOrder: Math.round((((ticks.get(role) ?? 0) * 1000) / TICKS_PER_SECOND / Math.max(orders, 1)) * 100) / 100,
      shares: Object.fromEntries(GROUPS.map((g) => [g, sum.cpuUs > 0 ? Math.round(((sum.byGroup[g] ?? 0) / sum.cpuUs) * 1000) / 10 : 0])),
    });
    const roles = [...byRole].map(([role, e]) => roleProfile(role, e.processes, addSummaries(e.summaries)));
    const all = addSummaries([...byRole.values()].flatMap((e) => e.summaries));
    roles.push(roleProfile('all', signalled.size, all));
    windows.push({ inFlight, orders, seconds: figures.windowSeconds, roles });
    say(`  ${inFlight} in flight: ${orders} orders in the profiled window`);
  }
  await bench.stop();
  return { windows, groups: GROUPS, profileDir };
}

/**
 * The profile as a table per window: a row per role, its CPU per order and the share of each group.
 * @param {{ windows: ProfileWindow[], groups: readonly string[], profileDir: string }} result
 * @returns {string}
 */
function renderProfile(result) {
  const short = (/** @type {string} */ g) => g.replace(/ \(.*\)$/, '').replace('MongoDB driver + bson', 'driver+bson').replace('embedded MongoDB', 'embedded').replace('garbage collection', 'GC').replace('other libraries', 'other');
  const lines = [];
  for (const w of result.windows) {
    lines.push(`${w.inFlight} in flight: ${w.orders} orders in ${w.seconds} s; CPU per order (/proc), and where its JavaScript time went (% of the role's profile)`);
    lines.push(['role'.padEnd(18), 'ms/order'.padStart(9), ...result.groups.map((g) => short(g).padStart(12))].join(''));
    for (const r of w.roles) {
      lines.push([`${r.role}${r.processes > 1 ? ` (${r.processes})` : ''}`.padEnd(18), r.cpuMsPerOrder.toFixed(2).padStart(9), ...result.groups.map((g) => `${(r.shares[g] ?? 0).toFixed(1)}%`.padStart(12))].join(''));
    }
    lines.push('');
  }
  lines.push(`The profiles (open them in Chrome DevTools): ${result.profileDir}`);
  return lines.join('\n');
}

module.exports = { runProfile, renderProfile };
