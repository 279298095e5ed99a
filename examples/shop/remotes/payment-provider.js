'use strict';
// A pretend payment provider: charges and refunds, each idempotency key applied once (a repeat
// gets the first answer), 402 for an amount over its limit. GET /effects lists every effect applied
// and, in `repeats`, every key sent again. An effect's `answered` turns true once its answer was
// sent (RESPONSE_DELAY_MS holds answers back, so a test can crash the caller in between).
// `arrivals` lists every call as it came (charge or refund, key, the charge key a refund names,
// when it arrived, whether it applied an effect, when it was answered or its caller left), so a test
// can check the order the caller sent its calls in. REMOTE_MODE=plain drops the protection below
// (a refund that comes first refuses a later charge), so that only the caller's own order counts.
const http = require('node:http');
const { listen, readJson, send } = require('./http-util');

const LIMIT = Number(process.env.PAYMENT_LIMIT ?? 100_000);
const DELAY_MS = Number(process.env.RESPONSE_DELAY_MS ?? 0);
const MODE = process.env.REMOTE_MODE ?? 'protective';
if (MODE !== 'protective' && MODE !== 'plain') throw new Error(`REMOTE_MODE is '${MODE}'; use protective (the default) or plain`);

/** chargeId → { chargeId, orderId, amount, key, refundedBy } */
const charges = new Map();
/** Idempotency-Key → the first answer. */
const answered = new Map();
/** Charge keys whose charge was undone before it arrived: a late charge under one is refused. */
const tombstones = new Set();
const effects = [];
/** Keys sent again after their first answer was given or prepared (a retry or a redelivery), in order. */
const repeats = [];
/** Every call with a key, as it arrived. */
const arrivals = [];
let next = 1;

function charge(key, body) {
  if (MODE === 'protective' && tombstones.has(key)) return [409, { error: `charge ${key} was canceled before it arrived` }];
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
    if (body.chargeKey && MODE === 'protective') tombstones.add(body.chargeKey);
    return [200, { refunded: false, reason: 'no such charge' }];
  }
  if (found.refundedBy) return [200, { refunded: true, refundId: found.refundedBy }];
  found.refundedBy = `re_${next++}`;
  const effect = { effect: 'refund', orderId: found.orderId, key, chargeId: found.chargeId, received: body, answered: false };
  effects.push(effect);
  return [201, { refunded: true, refundId: found.refundedBy }, effect];
}

function arrive(operation, key, body) {
  // A refund names its charge by key; its order is that charge's.
  const orderId = body.orderId ?? arrivals.find((a) => a.operation === 'charge' && a.key === body.chargeKey)?.orderId ?? null;
  const arrival = { arrivalId: `arr_${arrivals.length + 1}`, operation, orderId, key, at: Date.now(), applied: false };
  if (operation === 'refund' && body.chargeKey) arrival.chargeKey = body.chargeKey;
  arrivals.push(arrival);
  return arrival;
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://payments');
    if (req.method === 'GET' && url.pathname === '/effects') return send(res, 200, { mode: MODE, effects, repeats, arrivals });
    const op = req.method === 'POST' && url.pathname === '/charges' ? charge : req.method === 'POST' && url.pathname === '/refunds' ? refund : undefined;
    if (!op) return send(res, 404, { error: 'no such route' });
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || !key) return send(res, 400, { error: 'Idempotency-Key is required' });
    const body = await readJson(req);
    const arrival = arrive(op === charge ? 'charge' : 'refund', key, body);
    res.once('close', () => {
      if (res.writableFinished) arrival.answeredAt = Date.now();
      else arrival.abandonedAt = Date.now();
    });
    const first = answered.get(key);
    if (first) repeats.push(key);
    const answer = first ?? op(key, body);
    arrival.applied = !first && answer[2] !== undefined;
    answered.set(key, answer);
    if (DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
    send(res, answer[0], answer[1]);
    if (answer[2]) answer[2].answered = true;
  } catch (e) {
    send(res, 400, { error: e instanceof Error ? e.message : String(e) });
  }
});

listen(server, 'payment-provider');
