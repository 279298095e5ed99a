// @ts-check
'use strict';
// The Restate peer's service: one handler that runs the order's 3 steps, each a durable step
// (`ctx.run`), as Restate's TypeScript docs write a sequence of calls to other systems. Restate
// journals every step's result before the next one starts. Started by bench/lib/peer-restate.js.

// Node 20 lacks Promise.withResolvers, which the SDK uses (Node 22 has it).
if (typeof Promise.withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers() {
      /** @type {(value: unknown) => void} */ let resolve = () => {};
      /** @type {(reason?: unknown) => void} */ let reject = () => {};
      const promise = new Promise((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise, resolve, reject };
    },
  });
}

const restate = require('@restatedev/restate-sdk');
const { ORDER_STEPS, callStep, exitWithParent, requiredEnv } = require('./order-steps');

const remoteUrl = requiredEnv('BENCH_REMOTE_URL');
const port = Number(requiredEnv('BENCH_PORT'));

const orders = restate.service({
  name: 'Orders',
  handlers: {
    /** @param {restate.Context} ctx @param {{ orderId: string }} order */
    process: async (ctx, order) => {
      for (let i = 0; i < ORDER_STEPS.length; i++) {
        const [service] = ORDER_STEPS[i] ?? [];
        await ctx.run(String(service), () => callStep(remoteUrl, i, order.orderId));
      }
      return { orderId: order.orderId, status: 'Processed' };
    },
  },
});

async function main() {
  const server = restate.endpoint().bind(orders).listen(port);
  await server;
  process.stdout.write(`${JSON.stringify({ event: 'ready', port, pid: process.pid })}\n`);
  exitWithParent(async () => undefined);
}

main().catch((error) => {
  process.stderr.write(`restate-service: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
