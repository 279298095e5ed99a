// @ts-check
'use strict';

const { performance } = require('node:perf_hooks');
const { MongoClient } = require('mongodb');
const { latencyStats, round } = require('./latency-stats');

/**
 * @typedef {object} MongoRoundTripResult
 * @property {string} target which server: `embedded` or `MONGO_URL`
 * @property {number} inFlight operations outstanding at once, each on its own document
 * @property {number} windowSeconds
 * @property {number} roundTripsPerSecond findOneAndUpdate calls completed in the window per second
 * @property {import('./latency-stats').LatencyStats} latencyMs
 */

/**
 * @typedef {object} MongoRoundTripOptions
 * @property {string} url MongoDB connection string
 * @property {string} target label in the report
 * @property {string} dbName private database of this run; dropped afterwards
 * @property {number} inFlight
 * @property {number} warmupMs
 * @property {number} durationMs
 * @property {AbortSignal} signal ends the run early (Ctrl-C)
 */

/**
 * findOneAndUpdate round trips through the official driver, shaped like the store's writes: each
 * call is conditional on the document's current `revision` and increments it. Every step of the
 * system makes several such writes, so this rate next to the BullMQ baseline shows which of the
 * two bounds a step. Each of the `inFlight` loops owns one document, so no call loses its race.
 *
 * @param {MongoRoundTripOptions} options
 * @returns {Promise<MongoRoundTripResult>}
 */
async function measureMongoRoundTrips(options) {
  const { url, target, dbName, inFlight, warmupMs, durationMs, signal } = options;
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 10_000 });
  try {
    /** @type {import('mongodb').Collection<{ _id: string, revision: number, state: string, updatedAt: Date }>} */
    const collection = client.db(dbName).collection('bench_counters');
    const ids = Array.from({ length: inFlight }, (_, i) => `counter-${inFlight}-${i}`);
    await collection.deleteMany({ _id: { $in: ids } });
    await collection.insertMany(ids.map((_id) => ({ _id, revision: 0, state: 'Pending', updatedAt: new Date() })));

    const t0 = performance.now();
    const windowStart = t0 + warmupMs;
    const windowEnd = windowStart + durationMs;
    /** @type {number[]} */
    const latencies = [];
    /** @param {string} id */
    const loop = async (id) => {
      for (let revision = 0; ; revision++) {
        signal.throwIfAborted();
        const start = performance.now();
        if (start >= windowEnd) return;
        const doc = await collection.findOneAndUpdate(
          { _id: id, revision },
          { $inc: { revision: 1 }, $set: { state: revision % 2 === 0 ? 'Processing' : 'Pending', updatedAt: new Date() } },
          { returnDocument: 'after' },
        );
        const end = performance.now();
        if (doc?.['revision'] !== revision + 1) {
          throw new Error(`findOneAndUpdate on ${target} returned ${JSON.stringify(doc)} for ${id} at revision ${revision}; expected revision ${revision + 1}`);
        }
        if (end >= windowStart && end <= windowEnd) latencies.push(end - start);
      }
    };
    await Promise.all(ids.map(loop));
    return {
      target,
      inFlight,
      windowSeconds: durationMs / 1000,
      roundTripsPerSecond: round(latencies.length / (durationMs / 1000)),
      latencyMs: latencyStats(latencies),
    };
  } finally {
    await client.db(dbName).dropDatabase().catch(() => undefined);
    await client.close();
  }
}

module.exports = { measureMongoRoundTrips };
