'use strict';
// Two agents in one process, written with @sas/agent: `accounts` creates an account (and deletes
// it on an undo), `mailer` sends the welcome mail and refuses an address without an @. Each effect
// is logged as one JSON line ({"effect": ...}) so the test can count them.
const { PermanentError, runAgent } = require('@sas/agent');

const accounts = new Map();
let next = 1;

runAgent({
  agents: [
    {
      name: 'accounts',
      operations: {
        create: async (call) => {
          const accountId = `acc-${next++}`;
          accounts.set(accountId, call.payload.email);
          call.logger.info({ effect: 'create', orderId: call.orderId, accountId }, 'effect');
          return { accountId };
        },
        delete: async (call) => {
          const accountId = call.compensates?.result?.accountId;
          accounts.delete(accountId);
          call.logger.info({ effect: 'delete', orderId: call.orderId, accountId }, 'effect');
          return { deleted: accountId ?? null };
        },
      },
    },
    {
      name: 'mailer',
      operations: {
        send: async (call) => {
          const email = String(call.payload.email);
          if (!email.includes('@')) throw new PermanentError(`'${email}' is not an email address`);
          call.logger.info({ effect: 'send', orderId: call.orderId, to: email }, 'effect');
          return { sent: true };
        },
      },
    },
  ],
}).catch((e) => {
  process.stderr.write(`agents failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
