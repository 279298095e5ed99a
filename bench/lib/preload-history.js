// @ts-check
'use strict';

const { MongoClient } = require('mongodb');
const { CollectionNames, ensureIndexes } = require('@sas/store');
const { createProcess, orderFulfilmentV1 } = require('@sas/workflow');

const DAY_MS = 86_400_000;
const BATCH = 2_000;
/** The history a finished order leaves: one entry per transition the services would write. */
const TRANSITIONS = /** @type {const} */ ([
  [null, 'Pending', 'submitted'],
  ['Pending', 'Processing', 'claimed'],
  ['Processing', 'Processing', 'reply ok'],
  ['Processing', 'Processed', 'last step done'],
]);

/**
 * @typedef {object} PreloadResult
 * @property {number} processes finished processes stored
 * @property {number} events history entries stored with them
 * @property {number} seconds time the bulk inserts took
 */

/**
 * Stores `processes` finished orders (state Processed, shaped by `createProcess`, deleteTime
 * still days ahead as within the 7-day retention) and their history straight into a database
 * with bulk inserts, creating the system's indexes first as the services would. What issue 8's
 * "flat with history" figure needs: a store that already holds a week of work before the run.
 *
 * @param {{ url: string, dbName: string, processes: number, say: (line: string) => void }} options
 * @returns {Promise<PreloadResult>}
 */
async function preloadHistory({ url, dbName, processes, say }) {
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
  const startedAt = Date.now();
  let events = 0;
  try {
    const db = client.db(dbName);
    await ensureIndexes(db);
    const now = Date.now();
    let nextReport = 0;
    for (let start = 0; start < processes; start += BATCH) {
      /** @type {Record<string, unknown>[]} */
      const docs = [];
      /** @type {Record<string, unknown>[]} */
      const history = [];
      for (let i = start; i < Math.min(processes, start + BATCH); i++) {
        // Spread over the last six days, so every deleteTime (updatedAt + 7 days) lies ahead.
        const createdAt = now - DAY_MS - Math.floor((i / processes) * 5 * DAY_MS);
        const doc = createProcess({
          processId: `preload-${i}`,
          orderId: `preload-order-${i}`,
          payload: { sku: 'kettle', quantity: 1, amount: 1999 },
          replyTo: 'bench.preload',
          workflow: orderFulfilmentV1,
          now: createdAt,
        });
        const updatedAt = new Date(createdAt + 2_000);
        const deleteTime = new Date(updatedAt.getTime() + 7 * DAY_MS);
        docs.push({ ...doc, state: 'Processed', revision: TRANSITIONS.length, updatedAt, deleteTime });
        TRANSITIONS.forEach(([from, to, why], n) =>
          history.push({
            _id: `preload-${i}-${n}`,
            processId: doc._id,
            orderId: doc.orderId,
            who: 'bench-preload',
            at: new Date(createdAt + n * 500),
            from,
            to,
            why,
            attempt: 0,
            step: null,
            deleteTime,
          }),
        );
      }
      await db.collection(CollectionNames.processes).insertMany(/** @type {any[]} */ (docs), { ordered: false });
      await db.collection(CollectionNames.processEvents).insertMany(/** @type {any[]} */ (history), { ordered: false });
      events += history.length;
      const done = start + docs.length;
      if (done >= nextReport || done === processes) {
        say(`  preloaded ${done.toLocaleString('en-US')}/${processes.toLocaleString('en-US')} processes (${events.toLocaleString('en-US')} history entries), ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
        nextReport = done + Math.max(BATCH, Math.floor(processes / 10));
      }
    }
  } finally {
    await client.close();
  }
  return { processes, events, seconds: Math.round((Date.now() - startedAt) / 100) / 10 };
}

module.exports = { preloadHistory };
