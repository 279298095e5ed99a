'use strict';
// The kind of client library a payment provider ships: methods, its own error classes, no
// knowledge of sas. The agent (payment-agent.js) translates its errors into retry / don't retry.

/** The provider answered that it will never accept this request (4xx): do not retry. */
class PaymentDeclinedError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'PaymentDeclinedError';
    this.status = status;
  }
}

/** The provider is overloaded or failing (429, 5xx): try again later. */
class PaymentUnavailableError extends Error {
  constructor(message, status, retryAfterMs) {
    super(message);
    this.name = 'PaymentUnavailableError';
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

class PaymentClient {
  /** @param {{ baseUrl: string }} options */
  constructor({ baseUrl }) {
    if (!baseUrl) throw new Error('PaymentClient needs a baseUrl, e.g. http://127.0.0.1:4100');
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** Charges `amount` cents once per `idempotencyKey`; resolves with `{ id }`. */
  async charge({ orderId, amount, currency = 'EUR', idempotencyKey, signal }) {
    return this.post('/charges', { orderId, amount, currency }, idempotencyKey, signal);
  }

  /**
   * Refunds a charge, by its id, or by the key it was (or would have been) made with when its
   * id is unknown; under a key with no charge yet, a later charge is refused.
   */
  async refund(chargeId, { idempotencyKey, chargeKey, signal }) {
    return this.post('/refunds', { chargeId: chargeId ?? undefined, chargeKey }, idempotencyKey, signal);
  }

  async post(path, body, idempotencyKey, signal) {
    // Network errors (fetch's TypeError, an abort) propagate as they are: the outcome is unknown.
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status === 429 || res.status >= 500) {
      const retryAfter = Number(res.headers.get('retry-after'));
      throw new PaymentUnavailableError(`payment provider answered ${res.status}: ${text}`, res.status, retryAfter > 0 ? retryAfter * 1000 : undefined);
    }
    if (!res.ok) throw new PaymentDeclinedError(`payment provider refused: ${res.status} ${text}`, res.status);
    return JSON.parse(text);
  }
}

module.exports = { PaymentClient, PaymentDeclinedError, PaymentUnavailableError };
