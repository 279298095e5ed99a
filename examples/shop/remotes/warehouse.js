'use strict';
// A pretend warehouse REST API with its own dialect: reservations per order, `X-Request-Id` for
// idempotency, 409 when the order already holds a reservation, 422 for a SKU it does not stock.
// It records every effect it applies, with what it was sent, at GET /effects.
const http = require('node:http');
const { listen, readJson, send } = require('./http-util');

const STOCKED = new Set((process.env.WAREHOUSE_SKUS ?? 'kettle,teapot,mug').split(','));

/** orderId → { reservationId, sku, quantity, paidWith, released } */
const reservations = new Map();
/** X-Request-Id → the answer given the first time, replayed on every repeat. */
const answered = new Map();
/** Every effect applied, in order. */
const effects = [];
let next = 1;

function reserve(orderId, requestId, body) {
  const { sku, quantity, paidWith } = body;
  if (!STOCKED.has(sku)) return [422, { error: `unknown sku '${sku}'`, stocked: [...STOCKED] }];
  const held = reservations.get(orderId);
  if (held && !held.released) return [409, { error: `order ${orderId} already holds reservation ${held.reservationId}` }];
  const reservation = { reservationId: `res-${next++}`, orderId, sku, quantity, paidWith };
  reservations.set(orderId, { ...reservation, released: false });
  effects.push({ effect: 'reserve', orderId, requestId, reservationId: reservation.reservationId, received: body });
  return [201, { data: { reservation } }];
}

function release(orderId, requestId, undoes) {
  const held = reservations.get(orderId);
  if (!held || held.released) return [404, { error: `order ${orderId} holds no reservation` }];
  held.released = true;
  effects.push({ effect: 'release', orderId, requestId, reservationId: held.reservationId, undoes });
  return [200, { released: held.reservationId }];
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, 'http://warehouse');
    if (req.method === 'GET' && url.pathname === '/effects') return send(res, 200, { effects });
    const match = /^\/orders\/([^/]+)\/reservation$/.exec(url.pathname);
    if (!match || (req.method !== 'PUT' && req.method !== 'DELETE')) return send(res, 404, { error: 'no such route' });
    const requestId = req.headers['x-request-id'];
    if (typeof requestId !== 'string' || !requestId) return send(res, 400, { error: 'X-Request-Id is required' });
    const body = req.method === 'PUT' ? await readJson(req) : {};
    const seen = answered.get(requestId);
    if (seen) return send(res, seen[0], seen[1]);
    const orderId = decodeURIComponent(match[1]);
    const answer = req.method === 'PUT' ? reserve(orderId, requestId, body) : release(orderId, requestId, req.headers['x-undoes']);
    answered.set(requestId, answer);
    return send(res, answer[0], answer[1]);
  } catch (e) {
    return send(res, 400, { error: e instanceof Error ? e.message : String(e) });
  }
});

listen(server, 'warehouse');
