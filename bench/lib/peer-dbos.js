// @ts-check
'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { ManagedProcess, freePort } = require('@sas/stack');
const { startPrivatePostgres } = require('./private-postgres');

/**
 * DBOS: the application (bench/peers/dbos-app.js: the workflow and its web server, one Node
 * process) on a private PostgreSQL. Each order is one `POST /orders/<orderId>`, answered when the
 * workflow finished.
 * @param {import('./peers-run').PeerContext} ctx
 * @returns {Promise<import('./peers-run').StartedPeer>}
 */
async function startDbos(ctx) {
  const postgres = await startPrivatePostgres(ctx.cleanup);
  const port = await freePort();
  const app = new ManagedProcess({
    name: 'dbos-app',
    command: process.execPath,
    args: [join(ctx.peersDir, 'dbos-app.js')],
    cwd: ctx.peersDir,
    env: { BENCH_REMOTE_URL: ctx.remoteUrl, BENCH_PORT: String(port), BENCH_DATABASE_URL: postgres.url, BENCH_PARENT_PID: String(process.pid) },
    maxLines: 300,
  });
  ctx.cleanup.push('the DBOS application', () => app.stop(5000));
  await app.start();
  try {
    await app.waitForLine((l) => l.json?.['event'] === 'ready', 60_000, 'the DBOS application to listen');
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${app.describeLastLines(10)}`, { cause: error });
  }
  // The package's exports do not include its package.json: read it by path.
  const manifest = JSON.parse(readFileSync(join(ctx.peersDir, 'node_modules', '@dbos-inc', 'dbos-sdk', 'package.json'), 'utf8'));
  const base = `http://127.0.0.1:${port}`;
  return {
    settings: [
      `@dbos-inc/dbos-sdk ${String(manifest.version)} on a private ${postgres.version} (PostgreSQL's defaults: fsync and synchronous_commit on), connected as its superuser over loopback`,
      'the workflow: `DBOS.registerWorkflow` of 3 `DBOS.runStep` calls (each checkpointed in PostgreSQL before the next), started from a node:http server in the same process with the orderId as workflow ID; DBOS\'s defaults otherwise (system database pool of 10)',
      'each order: `POST /orders/<orderId>`, answered with the workflow\'s result',
    ],
    processes: () => [
      { name: 'postgres', role: 'postgres', pid: postgres.pid },
      { name: 'dbos-app', role: 'app', pid: () => app.pid },
    ],
    runOrder: async (orderId) => {
      const response = await fetch(`${base}/orders/${encodeURIComponent(orderId)}`, { method: 'POST' });
      const text = await response.text();
      if (!response.ok) throw new Error(`the DBOS application answered ${response.status} for ${orderId}: ${text.slice(0, 300)}`);
    },
  };
}

module.exports = { startDbos };
