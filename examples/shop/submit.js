'use strict';
// Submits N orders of the shop-order workflow with @sas/client and follows each one's statuses
// until a final one, printing one line per status. Usage: node submit.js [count]
// Environment: REDIS_URL, QUEUE_PREFIX (the services'), ORDER_PREFIX, SKU, AMOUNT, TIMEOUT_MS, and
// SPACING_MS: submit one order every SPACING_MS instead of all at once (a steady stream of orders).
const { randomUUID } = require('node:crypto');
const { FINAL_STATUSES, SasClient } = require('@sas/client');

async function main() {
  const count = Number(process.argv[2] ?? 3);
  const prefix = process.env.ORDER_PREFIX ?? `order-${randomUUID().slice(0, 8)}`;
  const deadline = AbortSignal.timeout(Number(process.env.TIMEOUT_MS ?? 120_000));
  const client = new SasClient({
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    prefix: process.env.QUEUE_PREFIX ?? 'sas',
    replyTo: `shop.status.${randomUUID()}`, // one status queue per submitter instance
  });
  try {
    const orders = Array.from({ length: count }, (_, i) => ({
      orderId: `${prefix}-${i + 1}`,
      workflow: 'shop-order',
      payload: { sku: process.env.SKU ?? 'kettle', quantity: 1, amount: Number(process.env.AMOUNT ?? 2500) },
    }));
    const spacingMs = Number(process.env.SPACING_MS ?? 0);
    if (spacingMs > 0) {
      for (const order of orders) {
        await client.submit(order);
        await new Promise((resolve) => setTimeout(resolve, spacingMs));
      }
    } else {
      await client.submitAll(orders);
    }
    const outcomes = await Promise.all(
      orders.map(async ({ orderId }) => {
        for await (const event of client.statuses(orderId, { signal: deadline })) {
          print({ orderId, status: event.status, step: event.step, reason: event.reason });
          if (FINAL_STATUSES.includes(event.status)) return [orderId, event.status];
        }
        return [orderId, 'unsettled'];
      }),
    );
    const summary = Object.fromEntries(outcomes);
    print({ summary });
    process.exitCode = outcomes.every(([, status]) => status !== 'unsettled') ? 0 : 1;
  } finally {
    await client.close();
  }
}

/** One JSON object per line, so people can read it and programs can parse it. */
function print(line) {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

main().catch((e) => {
  process.stderr.write(`submit failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
