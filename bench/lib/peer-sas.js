// @ts-check
'use strict';

const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { locateEmbeddedMongoCli, startEmbeddedMongo, startRedis } = require('@sas/stack');
const { BenchSystem } = require('./bench-system');
const { childPidsMatching } = require('./process-sampler');
const { WorkCounters } = require('./work-counters');

/** Statuses after which an order sends nothing more on its own; only `Processed` is a success. */
const FINAL = new Set(['Processed', 'Compensated', 'Canceled', 'Duplicate', 'Rejected', 'Failed']);

/**
 * sas as `pnpm bench` runs it (every service its own process, the embedded MongoDB), except that
 * its Redis appends to an AOF with `everysec`, like the chain's and docker-compose's. Each order is
 * a SasClient submit of order-fulfilment, finished when its final status event arrives.
 * @param {import('./peers-run').PeerContext} ctx
 * With `durable`, the embedded MongoDB keeps its data on disk (SQLite in WAL mode, as `sas up` runs it
 * on its data folder, decision 134); without it, in memory.
 * @param {{ statusEvents: 'final' | 'all', stallMs: number, sharedCore?: boolean, singleCore?: boolean, durable?: boolean }} options
 * @returns {Promise<import('./peers-run').StartedPeer>}
 */
async function startSas(ctx, options) {
  const redis = await startRedis({ appendOnly: true });
  ctx.cleanup.push('sas\'s redis-server', () => redis.stop());
  const dataDir = options.durable ? mkdtempSync(join(tmpdir(), 'sas-bench-mongo-')) : undefined;
  const mongo = await startEmbeddedMongo({ reason: 'the benchmark measures the embedded server', ...(dataDir && { dataDir }) });
  ctx.cleanup.push('the embedded MongoDB', async () => {
    await mongo.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  const cli = locateEmbeddedMongoCli();
  const mongoPid = () => childPidsMatching(process.pid, cli)[0];
  const bench = await BenchSystem.start({
    redis: { url: redis.url, pid: () => redis.pid },
    mongo: { url: mongo.url, kind: mongo.kind, pid: mongoPid },
    name: `peers-${ctx.runId}`,
    logDir: ctx.logDir,
    stallMs: options.stallMs,
    statusEvents: options.statusEvents,
    sharedCore: options.sharedCore ?? false,
    singleCore: options.singleCore ?? false,
    say: ctx.say,
    cleanup: /** @type {import('./cleanup-stack').CleanupStack} */ (/** @type {unknown} */ (ctx.cleanup)),
  });
  /** @type {Map<string, { resolve: () => void, reject: (error: Error) => void }>} */
  const pending = new Map();
  const unsubscribe = await bench.sas.onStatus((event) => {
    const orderId = event.orderId;
    if (orderId === undefined || !FINAL.has(event.status)) return;
    const waiter = pending.get(orderId);
    if (!waiter) return;
    pending.delete(orderId);
    if (event.status === 'Processed') waiter.resolve();
    else waiter.reject(new Error(`sas finished ${orderId} as ${event.status}, not Processed (service logs in ${ctx.logDir})`));
  });
  ctx.cleanup.push('the status listener', async () => unsubscribe());
  const work = new WorkCounters({ redisUrl: redis.url, mongoUrl: mongo.url });
  ctx.cleanup.push('the work counters', () => work.close());
  const roles = new Map();
  for (const p of bench.system.all) roles.set(p.name.replace(/-\d+$/, ''), (roles.get(p.name.replace(/-\d+$/, '')) ?? 0) + 1);
  return {
    settings: [
      `statusEvents: '${options.statusEvents}' (each order asks for ${options.statusEvents === 'final' ? 'Received and its outcome only' : 'every status event'})`,
      'redis-server 7, its own, `--appendonly yes --appendfsync everysec` (as docker-compose runs it; `pnpm bench` alone runs Redis without persistence)',
      `the embedded MongoDB (${dataDir ? 'on disk: SQLite in WAL mode, each write committed before it is acknowledged, as sas up runs it' : 'in memory: nothing survives its restart'}) and ${[...roles].map(([role, n]) => `${n} ${role}`).join(', ')}, ${options.sharedCore && options.singleCore ? 'core-1 hosting submission, the one scheduler and the one supervisor (sas up\'s default: no second scheduler or supervisor to take over at once when it dies), the three agents in one process of their own' : options.sharedCore ? 'core-1 hosting submission, a scheduler and a supervisor and core-2 a scheduler and a supervisor (sas up\'s shared core), the agents each its own process' : 'every service its own process'}, defaults as \`pnpm bench\` starts them`,
      'each order: SasClient.submit of order-fulfilment (3 steps), finished when its final status event arrives',
    ],
    // remote-sim is the remote, not the system: left out as it is for the peers; the benchmark's
    // own process is added by peer-loop for every system.
    work,
    processes: () => bench.sampledProcesses().filter((p) => p.role !== 'remote-sim' && p.role !== 'bench driver'),
    runOrder: (orderId) =>
      new Promise((resolve, reject) => {
        pending.set(orderId, { resolve, reject });
        bench.sas.submit({ orderId, workflow: 'order-fulfilment', payload: { sku: 'kettle', quantity: 1, amount: 1999 } }).catch((/** @type {unknown} */ error) => {
          pending.delete(orderId);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      }),
  };
}

module.exports = { startSas };
