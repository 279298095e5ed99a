'use strict';
// The payment agent: @sas/agent around the provider's SDK. Each handler makes one SDK call with
// the idempotency key it is given; the library does validation, retries, the breaker, complete-by,
// replies and shutdown. Environment: PAYMENT_URL plus the AgentConfig variables (REDIS_URL,
// QUEUE_PREFIX, MONGO_URL, MONGO_DB, ...; see @sas/agent's README).
const { z } = require('zod');
const { PermanentError, TransientError, defineOperation, runAgent } = require('@sas/agent');
const { PaymentClient, PaymentDeclinedError, PaymentUnavailableError } = require('./payment-sdk');

const payments = new PaymentClient({ baseUrl: process.env.PAYMENT_URL ?? 'http://127.0.0.1:4100' });

/** The SDK's errors as the agent's: declined never succeeds later; unavailable may. Anything else: unknown outcome. */
function translate(e) {
  if (e instanceof PaymentDeclinedError) return new PermanentError(e.message, { cause: e });
  if (e instanceof PaymentUnavailableError) return new TransientError(e.message, e.retryAfterMs, { cause: e });
  return e;
}

const charge = defineOperation({
  // Checked before any call: an order without a usable amount is refused, naming the field.
  input: z.object({ amount: z.number().int().positive(), currency: z.string().default('EUR') }),
  handle: async (call) => {
    try {
      const { id } = await payments.charge({
        orderId: call.orderId,
        amount: call.input.amount,
        currency: call.input.currency,
        idempotencyKey: call.idempotencyKey, // the same on every try and redelivery of this step
        signal: call.signal, // gives up at complete-by
      });
      return { chargeId: id }; // later steps get it in results['charge-payment']
    } catch (e) {
      throw translate(e);
    }
  },
});

async function refund(call) {
  // The undone charge's result comes with the undo (null when its outcome is unknown); its key
  // too, so the provider can refund, or refuse a late charge, without the id.
  const chargeId = call.compensates?.result?.chargeId;
  try {
    const answer = await payments.refund(typeof chargeId === 'string' ? chargeId : null, {
      idempotencyKey: call.idempotencyKey,
      chargeKey: call.compensates?.idempotencyKey,
      signal: call.signal,
    });
    return { refunded: answer.refunded === true, refundId: answer.refundId ?? null };
  } catch (e) {
    throw translate(e);
  }
}

runAgent({ agents: [{ name: 'payment', operations: { charge, refund } }] }).catch((e) => {
  process.stderr.write(`payment agent failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
