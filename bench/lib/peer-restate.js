// @ts-check
'use strict';

const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const { dirname, join } = require('node:path');
const { ManagedProcess, freePort } = require('@sas/stack');
const { waitUntil } = require('./wait-until');

/**
 * Restate: its server (the linux-x64 binary of `@restatedev/restate-server`) with its data in a
 * temporary directory, and the order service (bench/peers/restate-service.js) registered as a
 * deployment. Each order is one call to the ingress, which answers when the handler returned.
 * @param {import('./peers-run').PeerContext} ctx
 * @returns {Promise<import('./peers-run').StartedPeer>}
 */
async function startRestate(ctx) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the benchmark runs Restate's linux-x64 binary only (this is ${process.platform}-${process.arch})`);
  const manifest = require.resolve('@restatedev/restate-server-linux-x64/package.json', { paths: [ctx.peersDir] });
  const binary = join(dirname(manifest), 'bin', 'restate-server');
  const version = String(require(manifest).version);
  const [ingressPort, adminPort, nodePort, servicePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const baseDir = mkdtempSync(join(os.tmpdir(), 'sas-bench-restate-'));
  ctx.cleanup.push('Restate\'s data directory', async () => rmSync(baseDir, { recursive: true, force: true }));
  const server = new ManagedProcess({
    name: 'restate-server',
    command: binary,
    args: ['--no-logo', '--base-dir', baseDir],
    env: {
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingressPort}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${nodePort}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${nodePort}`,
      RESTATE_LISTEN_MODE: 'tcp',
      RESTATE_DISABLE_TELEMETRY: 'true',
    },
    maxLines: 300,
  });
  ctx.cleanup.push('restate-server', () => server.stop(5000));
  await server.start();
  const admin = `http://127.0.0.1:${adminPort}`;
  const ingress = `http://127.0.0.1:${ingressPort}`;
  await waitUntil(async () => (await fetch(`${admin}/health`).catch(() => undefined))?.ok === true, { timeoutMs: 60_000, intervalMs: 200, description: 'restate-server\'s admin API to answer', signal: ctx.signal });

  const service = new ManagedProcess({
    name: 'restate-service',
    command: process.execPath,
    args: [join(ctx.peersDir, 'restate-service.js')],
    env: { BENCH_REMOTE_URL: ctx.remoteUrl, BENCH_PORT: String(servicePort), BENCH_PARENT_PID: String(process.pid) },
    maxLines: 200,
  });
  ctx.cleanup.push('the Restate order service', () => service.stop(3000));
  await service.start();
  await service.waitForLine((l) => l.json?.['event'] === 'ready', 30_000, 'the Restate order service to listen');
  const registered = await fetch(`${admin}/deployments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ uri: `http://127.0.0.1:${servicePort}` }) });
  if (!registered.ok) throw new Error(`restate-server refused the order service's deployment: ${registered.status} ${await registered.text()}`);
  // The ingress learns of a new deployment shortly after the admin API accepted it.
  await waitUntil(async () => (await fetch(`${ingress}/Orders/process`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderId: `probe-${Date.now()}` }) }).catch(() => undefined))?.ok === true, { timeoutMs: 30_000, intervalMs: 200, description: 'the ingress to serve Orders/process', signal: ctx.signal });

  return {
    settings: [
      `restate-server ${version}, single node, defaults but: ports on 127.0.0.1, 'listen-mode tcp', 'disable-telemetry true' (no outbound calls); data in a fresh temporary directory`,
      'the order service: one `restate.service` handler, each step a `ctx.run` (journaled before the next step), served by `restate.endpoint().listen()` in one Node process; a `Promise.withResolvers` polyfill on Node 20',
      'each order: `POST /Orders/process` on the ingress with an `idempotency-key` header (the orderId), answered when the handler returned',
    ],
    processes: () => [
      { name: 'restate-server', role: 'restate-server', pid: () => server.pid },
      { name: 'restate-service', role: 'service', pid: () => service.pid },
    ],
    runOrder: async (orderId) => {
      const response = await fetch(`${ingress}/Orders/process`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': orderId },
        body: JSON.stringify({ orderId }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`Restate answered ${response.status} for ${orderId}: ${text.slice(0, 300)}`);
    },
  };
}

module.exports = { startRestate };
