'use strict';
// A pretend payment provider: charges and refunds, each idempotency key applied once (a repeat
// gets the first answer), 402 for an amount over its limit. GET /effects lists every effect applied
// and, in `repeats`, every key sent again. An effect's `answered` turns true once its answer was
// sent (RESPONSE_DELAY_MS holds answers back, so a test can crash the caller in between).
const http = require('node:http');
const { listen, readJson, send } = require('./http-util');

const LIMIT = Number(process.env.PAYMENT_LIMIT ?? 100_000);
const DELAY_MS = Number(process.env.RESPONSE_DELAY_MS ?? 0);

/** chargeId → { chargeId, orderId, amount, key, refundedBy } */
const charges = new Map();
/** Idempotency-Key → the first answer. */
const answered = new Map();
/** Charge keys whose charge was undone before it arrived: a late charge under one is refused. */
const tombstones = new Set();
const effects = [];
/** Keys sent again after their first answer was given or prepared (a retry or a redelivery), in order. */
const repeats = [];
let next = 1;

function charge(key, body) {
  if (tombstones.has(key)) return [409, { error: `charge ${key} was canceled before it arrived` }];
  if (!Number.isInteger(body.amount) || body.amount <= 0) return [400, { error: 'amount must be a positive integer (cents)' }];
  if (body.amount > LIMIT) return [402, { error: `amount ${body.amount} is over the limit of ${LIMIT}` }];
  const chargeId = `ch_${next++}`;
  charges.set(chargeId, { chargeId, orderId: body.orderId, amount: body.amount, key, refundedBy: undefined });
  const effect = { effect: 'charge', orderId: body.orderId, key, chargeId, amount: body.amount, answered: false };
  effects.push(effect);
  return [201, { id: chargeId, status: 'succeeded' }, effect];
}

function refund(key, body) {
  const found = body.chargeId
    ? charges.get(body.chargeId)
    : [...charges.values()].find((c) => c.key === body.chargeKey);
  if (!found) {
    // Nothing was charged under that key (yet): make sure nothing will be.
    if (body.chargeKey) tombstones.add(body.chargeKey);
    return [200, { refunded: false, reason: 'no such charge' }];
  }
  if (found.refundedBy) return [200, { refunded: true, refundId: found.refundedBy }];
  found.refundedBy = `re_${next++}`;
  const effect = { effect: 'refund', orderId: found.orderId, key, chargeId: found.chargeId, received: body, answered: false };
  effects.push(effect);
  return [201, { refunded: true, refundId: found.refundedBy }, effect];
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://payments');
    if (req.method === 'GET' && url.pathname === '/effects') return send(res, 200, { effects, repeats });
    const op = req.method === 'POST' && url.pathname === '/charges' ? charge : req.method === 'POST' && url.pathname === '/refunds' ? refund : undefined;
    if (!op) return send(res, 404, { error: 'no such route' });
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || !key) return send(res, 400, { error: 'Idempotency-Key is required' });
    const body = await readJson(req);
    const first = answered.get(key);
    if (first) repeats.push(key);
    const answer = first ?? op(key, body);
    answered.set(key, answer);
    if (DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
    send(res, answer[0], answer[1]);
    if (answer[2]) answer[2].answered = true;
  } catch (e) {
    send(res, 400, { error: e instanceof Error ? e.message : String(e) });
  }
});

listen(server, 'payment-provider');
