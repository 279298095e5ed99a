// @ts-check
'use strict';
// The order every system of `pnpm bench -- --peers` runs: 3 sequential steps, each an HTTP POST to
// the benchmark's remote-sim (which answers at once), with the same body and Idempotency-Key that
// sas's agents send, so the remote does the same work for every system.

/** The three steps of an order, in order: [remote service, operation]. */
const ORDER_STEPS = Object.freeze([
  ['inventory', 'reserve'],
  ['payment', 'charge'],
  ['shipping', 'create'],
]);

/**
 * One step's call to the remote: resolves with the remote's JSON answer, throws on any status but 2xx.
 * @param {string} remoteUrl e.g. http://127.0.0.1:40123
 * @param {number} index 0, 1 or 2
 * @param {string} orderId
 * @returns {Promise<unknown>}
 */
async function callStep(remoteUrl, index, orderId) {
  const [service, operation] = ORDER_STEPS[index] ?? [];
  const response = await fetch(`${remoteUrl}/services/${service}/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': `${orderId}:${service}` },
    body: JSON.stringify({ orderId, payload: { sku: 'kettle', quantity: 1, amount: 1999 } }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${service}/${operation} answered ${response.status}: ${text.slice(0, 200)}`);
  return text === '' ? {} : JSON.parse(text);
}

/**
 * Exits the process when the benchmark that started it is gone (killed with SIGKILL, it could not
 * stop us), and on SIGTERM/SIGINT after `close`.
 * @param {() => Promise<unknown>} close
 */
function exitWithParent(close) {
  const parentPid = Number(process.env['BENCH_PARENT_PID']);
  let closing = false;
  const leave = () => {
    if (closing) return;
    closing = true;
    close().finally(() => process.exit(0));
  };
  process.on('SIGTERM', leave);
  process.on('SIGINT', leave);
  if (Number.isInteger(parentPid) && parentPid > 0) {
    setInterval(() => {
      try {
        process.kill(parentPid, 0);
      } catch {
        leave();
      }
    }, 1000).unref();
  }
}

/** @param {string} name */
function requiredEnv(name) {
  const value = process.env[name];
  if (value === undefined || value === '') {
    process.stderr.write(`${name} is not set; this script is started by bench/run-benchmarks.js --peers\n`);
    process.exit(2);
  }
  return value;
}

module.exports = { ORDER_STEPS, callStep, exitWithParent, requiredEnv };
