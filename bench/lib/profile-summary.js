// @ts-check
'use strict';

/**
 * Where a process's CPU went, from a V8 CPU profile (`.cpuprofile`): each sample's time is charged
 * to the library (or our own code) that was running. A sample in Node's or V8's own code (a socket
 * write, `JSON.stringify`, a promise job) is charged to the nearest frame below it on the stack that
 * belongs to a package, so the cost a library causes is counted as the library's; with none
 * (the event loop itself) it stays "Node/V8". Garbage collection is its own group. Idle time is
 * not CPU and is left out, and so is `(program)`: in a profile started through the inspector, V8
 * cannot tell the event loop waiting in epoll from native work outside JavaScript and files both
 * there (a supervisor, idle 99% of the time, showed 85% "(program)"). The profiler's own calls
 * are left out too. The shares are therefore
 * shares of the time spent running JavaScript and its callees; the CPU per order is read from
 * /proc by the caller.
 */

/** @typedef {{ id: number, callFrame: { functionName: string, url: string }, children?: number[] }} ProfileNode */
/** @typedef {{ nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }} CpuProfile */

/** The groups, in the order a report shows them. */
const GROUPS = Object.freeze([
  'sas (our code)',
  'embedded MongoDB (the stand-in)',
  'MongoDB driver + bson',
  'BullMQ + ioredis',
  'zod',
  'pino',
  'HTTP (node:http, undici)',
  'other libraries',
  'Node/V8',
  'garbage collection',
]);

/** npm packages by group; anything else under node_modules is "other libraries". */
const PACKAGE_GROUPS = new Map([
  ...['mongodb', 'bson', 'mongodb-connection-string-url', '@mongodb-js/saslprep', 'whatwg-url', 'tr46', 'webidl-conversions'].map((p) => [p, 'MongoDB driver + bson']),
  ...['bullmq', 'ioredis', 'redis-parser', 'redis-errors', 'cluster-key-slot', 'standard-as-callback', 'denque', 'msgpackr', 'lodash.defaults', 'lodash.isarguments', 'uuid', 'semver', 'tslib'].map((p) => [p, 'BullMQ + ioredis']),
  ['zod', 'zod'],
  ...['pino', 'sonic-boom', 'thread-stream', 'fast-redact', 'quick-format-unescaped', 'atomic-sleep', 'on-exit-leak-free', 'safe-stable-stringify', 'pino-std-serializers', 'real-require'].map((p) => [p, 'pino']),
  ['undici', 'HTTP (node:http, undici)'],
]);

/**
 * The group of one frame, or undefined when it is Node's or V8's own code (charged to its caller).
 * @param {string} url
 * @returns {string | undefined}
 */
function groupOfUrl(url) {
  if (url === '' || url.startsWith('node:')) return undefined;
  const at = url.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const rest = url.slice(at + '/node_modules/'.length).split('/');
    const name = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '');
    return PACKAGE_GROUPS.get(name) ?? 'other libraries';
  }
  if (url.includes('/packages/embedded-mongo/')) return 'embedded MongoDB (the stand-in)';
  if (url.includes('/packages/') || url.includes('/services/')) return 'sas (our code)';
  return undefined;
}

/** The profiler's own start and stop (the preload's inspector calls): not the process's work. */
const PROFILER = 'profiler';

/** HTTP work of Node's own modules is named as such, not charged to whoever called it. */
const NODE_HTTP = /^node:(_http_|http$|https$)/;

/**
 * Microseconds of CPU per group in one profile.
 * @param {CpuProfile} profile
 * @returns {{ cpuUs: number, idleUs: number, programUs: number, byGroup: Record<string, number> }} `cpuUs`: time in JavaScript and its callees, by group
 */
function summarizeProfile(profile) {
  /** @type {Map<number, ProfileNode>} */
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  /** @type {Map<number, number>} child id → parent id */
  const parents = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  /** @type {Map<number, string>} node id → its group, memoised */
  const groups = new Map();
  /** @param {number} id @returns {string} */
  const groupOf = (id) => {
    const known = groups.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id);
    const { functionName, url } = node?.callFrame ?? { functionName: '', url: '' };
    let group;
    if (functionName === '(garbage collector)') group = 'garbage collection';
    else if (url.endsWith('/cpu-profile-preload.js')) group = PROFILER;
    else if (NODE_HTTP.test(url)) group = 'HTTP (node:http, undici)';
    else group = groupOfUrl(url) ?? (parents.has(id) ? groupOf(/** @type {number} */ (parents.get(id))) : 'Node/V8');
    groups.set(id, group);
    return group;
  };
  /** @type {Record<string, number>} */
  const byGroup = Object.fromEntries(GROUPS.map((g) => [g, 0]));
  let cpuUs = 0;
  let idleUs = 0;
  let programUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i] ?? 0;
    // V8 records each sample's delta since the previous one: that time was spent where this one was taken.
    const us = profile.timeDeltas[i] ?? 0;
    const name = nodes.get(id)?.callFrame.functionName;
    if (name === '(idle)') {
      idleUs += us;
      continue;
    }
    if (name === '(program)') {
      programUs += us;
      continue;
    }
    const group = name === '(root)' ? 'Node/V8' : groupOf(id);
    if (group === PROFILER) continue;
    byGroup[group] = (byGroup[group] ?? 0) + us;
    cpuUs += us;
  }
  return { cpuUs, idleUs, programUs, byGroup };
}

/**
 * Sums summaries (the processes of one role, or of the whole system).
 * @param {ReadonlyArray<{ cpuUs: number, byGroup: Record<string, number> }>} summaries
 */
function addSummaries(summaries) {
  /** @type {Record<string, number>} */
  const byGroup = Object.fromEntries(GROUPS.map((g) => [g, 0]));
  let cpuUs = 0;
  for (const s of summaries) {
    cpuUs += s.cpuUs;
    for (const [g, us] of Object.entries(s.byGroup)) byGroup[g] = (byGroup[g] ?? 0) + us;
  }
  return { cpuUs, byGroup };
}

module.exports = { GROUPS, summarizeProfile, addSummaries, groupOfUrl };
