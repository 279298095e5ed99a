// @ts-check
'use strict';

const Redis = require('ioredis').default;
const { MongoClient } = require('mongodb');

/**
 * @typedef {object} WorkSnapshot cumulative counters of a system's stores at one moment
 * @property {Record<string, number>} redis Redis commands run, by command (`INFO commandstats`; those inside Lua scripts one by one)
 * @property {number} jobAdds BullMQ job adds: the sum of every queue's `<queue>:id` counter, which BullMQ's add scripts increment on each add (a repeated add under a taken id included)
 * @property {Record<string, number> | undefined} mongo MongoDB commands, by name (`serverStatus` `metrics.commands`); undefined when the system has no MongoDB
 */

/**
 * @typedef {object} WorkPerOrder what one order cost the stores, counted over the measured window (load-independent)
 * @property {number} redisCommands
 * @property {Record<string, number>} redisTop the largest commands per order
 * @property {number} bullmqJobs
 * @property {number | undefined} mongoCommands
 * @property {Record<string, number> | undefined} mongoByCommand
 */

/** Reads each store's counters; the readers' own few commands are within a rounding of the figures. */
class WorkCounters {
  /** @param {{ redisUrl: string, mongoUrl?: string }} stores */
  constructor({ redisUrl, mongoUrl }) {
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: false });
    /** @type {Promise<MongoClient> | undefined} */
    this.mongo = mongoUrl ? MongoClient.connect(mongoUrl, { serverSelectionTimeoutMS: 10_000 }) : undefined;
  }

  /** @returns {Promise<WorkSnapshot>} */
  async snapshot() {
    const [info, jobAdds, mongo] = await Promise.all([this.redis.info('commandstats'), this.jobAdds(), this.mongoCommands()]);
    /** @type {Record<string, number>} */
    const redis = {};
    for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) redis[m[1] ?? ''] = Number(m[2]);
    return { redis, jobAdds, mongo };
  }

  /** @private */
  async jobAdds() {
    let total = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', '*:id', 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) {
        const values = await this.redis.mget(...keys);
        for (const v of values) total += Number(v ?? 0) || 0;
      }
    } while (cursor !== '0');
    return total;
  }

  /** @private @returns {Promise<Record<string, number> | undefined>} */
  async mongoCommands() {
    if (!this.mongo) return undefined;
    const status = await (await this.mongo).db('admin').command({ serverStatus: 1 });
    /** @type {Record<string, number>} */
    const out = {};
    for (const [name, c] of Object.entries(status['metrics']?.commands ?? {})) {
      const total = Number(/** @type {{ total?: unknown }} */ (c)?.total ?? 0);
      if (total > 0) out[name] = total;
    }
    return out;
  }

  async close() {
    this.redis.disconnect();
    if (this.mongo) await (await this.mongo).close().catch(() => undefined);
  }
}

/**
 * The work of `orders` orders between two snapshots, per order. The commands of the readers
 * themselves (INFO, SCAN, MGET, serverStatus) are left out.
 * @param {WorkSnapshot} before
 * @param {WorkSnapshot} after
 * @param {number} orders
 * @returns {WorkPerOrder | undefined}
 */
function workPerOrder(before, after, orders) {
  if (orders <= 0) return undefined;
  const own = new Set(['info', 'scan', 'mget', 'serverStatus', 'hello', 'isMaster', 'ismaster', 'ping', 'endSessions', 'client|setinfo', 'client']);
  const per = (/** @type {number} */ x) => Math.round((x / orders) * 100) / 100;
  /** @param {Record<string, number>} a @param {Record<string, number>} b */
  const delta = (a, b) =>
    Object.fromEntries(
      Object.entries(b)
        .map(([k, v]) => /** @type {[string, number]} */ ([k, v - (a[k] ?? 0)]))
        .filter(([k, v]) => v > 0 && !own.has(k)),
    );
  const redis = delta(before.redis, after.redis);
  const redisCommands = Object.values(redis).reduce((s, v) => s + v, 0);
  const redisTop = Object.fromEntries(
    Object.entries(redis)
      .sort((x, y) => y[1] - x[1])
      .slice(0, 8)
      .map(([k, v]) => [k, per(v)]),
  );
  const mongo = before.mongo && after.mongo ? delta(before.mongo, after.mongo) : undefined;
  return {
    redisCommands: per(redisCommands),
    redisTop,
    bullmqJobs: per(after.jobAdds - before.jobAdds),
    mongoCommands: mongo ? per(Object.values(mongo).reduce((s, v) => s + v, 0)) : undefined,
    mongoByCommand: mongo ? Object.fromEntries(Object.entries(mongo).sort((x, y) => y[1] - x[1]).map(([k, v]) => [k, per(v)])) : undefined,
  };
}

/**
 * One line: `412 Redis commands (evalsha 60, ...), 10 BullMQ jobs, 12.9 MongoDB commands (update 6.1, ...)`.
 * @param {WorkPerOrder} w
 */
function describeWork(w) {
  const top = (/** @type {Record<string, number>} */ r, n = 5) =>
    Object.entries(r)
      .slice(0, n)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
  const mongo = w.mongoCommands === undefined ? '' : `, ${w.mongoCommands} MongoDB commands (${top(w.mongoByCommand ?? {}, 6)})`;
  return `${w.redisCommands} Redis commands (${top(w.redisTop)}), ${w.bullmqJobs} BullMQ job adds${mongo}`;
}

module.exports = { WorkCounters, workPerOrder, describeWork };
