// @ts-check
'use strict';
// The DBOS peer's application: a workflow of the order's 3 steps, each `DBOS.runStep`, as DBOS's
// TypeScript programming guide writes one, served over HTTP in the same process (the guide's
// shape: the app's own web server starts workflows). `POST /orders/<orderId>` runs the workflow
// with the orderId as its workflow ID (DBOS's idempotency key) and answers when it has finished.
// Started by bench/lib/peer-dbos.js.

const http = require('node:http');
const { DBOS } = require('@dbos-inc/dbos-sdk');
const { ORDER_STEPS, callStep, exitWithParent, requiredEnv } = require('./order-steps');

const remoteUrl = requiredEnv('BENCH_REMOTE_URL');
const port = Number(requiredEnv('BENCH_PORT'));

/** @param {string} orderId */
async function processOrder(orderId) {
  for (let i = 0; i < ORDER_STEPS.length; i++) {
    const [service] = ORDER_STEPS[i] ?? [];
    await DBOS.runStep(() => callStep(remoteUrl, i, orderId), { name: String(service) });
  }
  return { orderId, status: 'Processed' };
}

const orderWorkflow = DBOS.registerWorkflow(processOrder, { name: 'processOrder' });

async function main() {
  DBOS.setConfig({ name: 'sas-bench-peer', applicationVersion: '0.1.0', systemDatabaseUrl: requiredEnv('BENCH_DATABASE_URL') });
  await DBOS.launch();
  const server = http.createServer((request, response) => {
    const match = /^\/orders\/([^/]+)$/.exec(request.url ?? '');
    if (request.method !== 'POST' || !match) {
      response.writeHead(404).end();
      return;
    }
    const orderId = decodeURIComponent(match[1] ?? '');
    request.resume();
    DBOS.startWorkflow(orderWorkflow, { workflowID: orderId })(orderId)
      .then((handle) => handle.getResult())
      .then((result) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)))
      .catch((/** @type {unknown} */ error) => response.writeHead(500).end(error instanceof Error ? error.message : String(error)));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  process.stdout.write(`${JSON.stringify({ event: 'ready', port, pid: process.pid })}\n`);
  exitWithParent(async () => {
    server.close();
    await DBOS.shutdown();
  });
}

main().catch((error) => {
  process.stderr.write(`dbos-app: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
