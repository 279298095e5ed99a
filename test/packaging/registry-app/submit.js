'use strict';
// Submits one signup per email given on the command line with @sas/client, waits for each to
// settle and prints {"summary": {orderId: status}}.
const { randomUUID } = require('node:crypto');
const { SasClient } = require('@sas/client');

async function main() {
  const client = new SasClient({
    redisUrl: process.env.REDIS_URL,
    prefix: process.env.QUEUE_PREFIX,
    replyTo: `signup.status.${randomUUID()}`,
  });
  try {
    const orders = process.argv.slice(2).map((email, i) => ({ orderId: `signup-${i + 1}`, workflow: 'signup', payload: { email } }));
    await client.submitAll(orders);
    const outcomes = await Promise.all(
      orders.map(async ({ orderId }) => {
        const event = await client.waitFor(orderId, { until: ['Processed', 'Compensated', 'Canceled', 'Duplicate', 'Rejected'], timeoutMs: 90000 });
        return [orderId, event.status];
      }),
    );
    process.stdout.write(`${JSON.stringify({ summary: Object.fromEntries(outcomes) })}\n`);
  } finally {
    await client.close();
  }
}

main().catch((e) => {
  process.stderr.write(`submit failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
