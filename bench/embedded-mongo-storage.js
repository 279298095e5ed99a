#!/usr/bin/env node
// @ts-check
'use strict';
// What keeping the embedded MongoDB's state on disk costs: inserts and findOneAndUpdate ($inc)
// through the official driver against the CLI run as its own process, in memory, with
// --data-dir (sync normal: commits survive a kill -9) and with --data-dir --sync full (commits
// also survive a power loss: an fsync per command). 1 in flight gives the latency of one write,
// 16 in flight the throughput. Reports and never judges.
//
//   node bench/embedded-mongo-storage.js [--seconds N] [--json]
//
// Needs Node 22.13+ (node:sqlite) and `tsc -b` first.

const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { performance } = require('node:perf_hooks');
const { createInterface } = require('node:readline');
const { MongoClient } = require('mongodb');
const { latencyStats, round } = require('./lib/latency-stats');

const CLI = join(__dirname, '..', 'packages', 'embedded-mongo', 'dist', 'cli.js');
const argv = process.argv.slice(2);
const seconds = Number(argv[argv.indexOf('--seconds') + 1] ?? 2) || 2;
const MODES = [
  { mode: 'memory', args: [] },
  { mode: 'sync=normal', args: ['--sync', 'normal'], disk: true },
  { mode: 'sync=full', args: ['--sync', 'full'], disk: true },
];

/** Starts the CLI and resolves with the child and its URL once it printed its listening line. */
function startServer(args) {
  const child = spawn(process.execPath, [CLI, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the embedded MongoDB exited with ${code} before listening:\n${stderr}`)));
    createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (line) => {
      const event = JSON.parse(line);
      if (event.event === 'listening') resolve({ child, url: event.url });
    });
  });
}

/**
 * Runs `op` in `inFlight` loops for `durationMs` (after a warm-up) and measures each call.
 * @param {(loop: number, i: number) => Promise<unknown>} op
 */
async function closedLoop(op, inFlight, durationMs) {
  const samples = [];
  let measuring = false;
  let stop = false;
  const loops = Array.from({ length: inFlight }, async (_, loop) => {
    for (let i = 0; !stop; i++) {
      const t0 = performance.now();
      await op(loop, i);
      if (measuring) samples.push(performance.now() - t0);
    }
  });
  await new Promise((r) => setTimeout(r, 300));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  measuring = false;
  const elapsed = performance.now() - t0;
  stop = true;
  await Promise.all(loops);
  const stats = latencyStats(samples);
  return { opsPerSecond: round((samples.length / elapsed) * 1000), p50: round(stats.p50), p99: round(stats.p99) };
}

async function measure({ mode, args, disk }) {
  const dir = disk ? mkdtempSync(join(tmpdir(), 'embedded-mongo-bench-')) : undefined;
  const { child, url } = await startServer(dir ? ['--data-dir', dir, ...args] : args);
  const client = await MongoClient.connect(url, { maxPoolSize: 32 });
  const rows = [];
  try {
    const db = client.db('bench');
    const payload = 'x'.repeat(200);
    let run = 0;
    for (const inFlight of [1, 16]) {
      run++;
      const items = db.collection(`items${run}`);
      await items.createIndex({ key: 1 }, { unique: true });
      rows.push({ mode, op: 'insertOne', inFlight, ...(await closedLoop((loop, i) => items.insertOne({ key: `${loop}-${i}`, payload, at: new Date() }), inFlight, seconds * 1000)) });
      const counters = db.collection(`counters${run}`);
      await counters.insertMany(Array.from({ length: inFlight }, (_, loop) => ({ _id: loop, n: 0, revision: 0 })));
      rows.push({
        mode,
        op: 'findOneAndUpdate $inc',
        inFlight,
        ...(await closedLoop((loop) => counters.findOneAndUpdate({ _id: loop }, { $inc: { n: 1, revision: 1 }, $set: { at: new Date() } }), inFlight, seconds * 1000)),
      });
    }
  } finally {
    await client.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

async function main() {
  const rows = [];
  for (const mode of MODES) rows.push(...(await measure(mode)));
  if (argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const memory = new Map(rows.filter((r) => r.mode === 'memory').map((r) => [`${r.op}/${r.inFlight}`, r.opsPerSecond]));
  process.stdout.write('| mode | operation | in flight | ops/s | p50 ms | p99 ms | ops/s vs memory |\n|---|---|---|---|---|---|---|\n');
  for (const r of rows) {
    const ratio = r.opsPerSecond / (memory.get(`${r.op}/${r.inFlight}`) ?? r.opsPerSecond);
    process.stdout.write(`| ${r.mode} | ${r.op} | ${r.inFlight} | ${r.opsPerSecond} | ${r.p50} | ${r.p99} | ${round(ratio)} |\n`);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
