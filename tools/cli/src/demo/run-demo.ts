import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SasClient } from '@sas/client';
import type { ProcessDocument } from '@sas/contracts';
import { CollectionNames, connectStore, type StoreConnection } from '@sas/store';
import { demoFaults } from './demo-faults';
import { demoOrders } from './demo-orders';
import { FINAL_STATES, type OrderView } from './order-view';
import { renderProgress } from './render-progress';
import { renderRemoteStats, type RemoteStats } from './render-remote-stats';
import { renderSummary } from './render-summary';
import { describeMongo } from '../up/describe-mongo';
import { startUp } from '../up/start-up';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  orders: number;
  faults: 'none' | 'mild' | 'chaos';
  keep: boolean;
  timeoutMs: number;
  out: (line: string) => void;
}

/**
 * The main job, locally: `sas up` on the built-in workflows with remote-sim and its agents
 * ({@link startUp}), then demo orders submitted, their progress shown and a summary printed.
 * Resolves with the exit code.
 */
export async function runDemo(options: DemoOptions): Promise<number> {
  const { out } = options;
  const runId = randomBytes(3).toString('hex');
  const logDir = join(tmpdir(), 'sas-demo', runId);
  // After Ctrl-C the whole process group gets SIGINT, so children exit on their own while we stop
  // them: their exits are expected then, not news.
  let stopping = false;
  const log = (msg: string): void => {
    // Which Redis and MongoDB is said once, below, with what it means for the data.
    if (!stopping && !/^(Redis|MongoDB): /.test(msg)) out(`  ${msg}`);
  };
  out(`sas demo ${runId}: ${options.orders} orders, faults '${options.faults}'. Service logs: ${logDir}`);
  out('  starting services: remote-sim, 3 agents, 2 schedulers, 2 supervisors, submission, dashboard ...');
  // The demo is `sas up` on the built-in workflows, with remote-sim behind the built-in agents.
  // Its own database and prefix per run, whatever the shell exports.
  const env = { ...process.env };
  delete env['MONGO_DB'];
  delete env['QUEUE_PREFIX'];
  const up = await startUp({ name: `sas-demo-${runId}`, builtInAgents: true, agents: [], schedulers: 2, supervisors: 2, dashboardPort: 0, logDir, log, env });
  const { system, loginUrl } = up;
  const redisUrl = up.env.REDIS_URL;
  out(`  Redis: ${redisUrl} (${up.redisKind})`);
  out(`  ${describeMongo(up.mongo)}`);
  const closers: (() => Promise<unknown>)[] = [];
  let store: StoreConnection | undefined;
  try {
    store = await connectStore(up.env.MONGO_URL, up.env.MONGO_DB);
    out(`  all ${system.all.length} processes ready (remote-sim at ${system.remoteSimUrl})`);
    out(`  dashboard: ${loginUrl}  (signs you in as operator; bull-board: ${up.dashboardUrl}/queues)`);

    const replyTo = `demo.status.${runId}`;
    const orders = demoOrders(runId, options.orders, replyTo);
    const failing = options.faults === 'none' ? undefined : orders[Math.min(6, orders.length - 1)]?.orderId;
    for (const [service, faults] of Object.entries(demoFaults(options.faults, failing))) {
      const res = await fetch(`${system.remoteSimUrl}/admin/faults/${service}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(faults),
      });
      if (!res.ok) throw new Error(`remote-sim refused the fault plan for ${service}: ${res.status} ${await res.text()}`);
    }
    if (failing) out(`  shipping will refuse ${failing} permanently: watch it get compensated`);

    // The demo is an application of the system: it submits and follows its orders through @sas/client.
    const client = new SasClient({ redisUrl, prefix: up.env.QUEUE_PREFIX, replyTo });
    closers.push(() => client.close());
    let statusEvents = 0;
    await client.onStatus(() => void (statusEvents += 1));
    await client.submitAll(orders);
    out(`  submitted ${orders.length} orders`);

    const started = Date.now();
    const ids = orders.map((o) => o.orderId);
    const processes = store.db.collection<ProcessDocument>(CollectionNames.processes);
    const interactive = process.stdout.isTTY === true;
    let views: OrderView[] = [];
    let lastPrinted = 0;
    for (;;) {
      views = (await processes.find({ orderId: { $in: ids } }).toArray()).map(toView);
      const done = views.filter((v) => FINAL_STATES.includes(v.state)).length;
      const line = renderProgress(views, ids.length, Date.now() - started, statusEvents);
      if (interactive) process.stdout.write(`\r  ${line}`);
      else if (Date.now() - lastPrinted >= 2000 || done === ids.length) {
        out(`  ${line}`);
        lastPrinted = Date.now();
      }
      if (done === ids.length) break;
      if (Date.now() - started > options.timeoutMs) {
        if (interactive) process.stdout.write('\n');
        out(`Timed out after ${options.timeoutMs} ms with ${ids.length - done} orders unfinished. Logs: ${logDir}`);
        return 1;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    if (interactive) process.stdout.write('\n');
    out('');
    out(renderSummary(views));
    const errors = views.filter((v) => v.state === 'Error');
    const stats = (await (await fetch(`${system.remoteSimUrl}/stats`)).json()) as RemoteStats;
    out('');
    out('What the remote services saw (replayed = a retry answered from the idempotency ledger):');
    out(renderRemoteStats(stats));
    out('');
    if (errors.length > 0) {
      out(`${errors.length} orders ended in Error and need an operator (sas resubmit / sas cancel). Logs: ${logDir}`);
    } else {
      out(`All ${views.length} orders finished: each either fully processed or fully undone.`);
    }
    if (options.keep) {
      out('');
      out('The stack keeps running (--keep). Point the CLI at it with:');
      out(`  export REDIS_URL=${redisUrl} MONGO_URL='${up.env.MONGO_URL}' MONGO_DB=${up.env.MONGO_DB} QUEUE_PREFIX=${up.env.QUEUE_PREFIX}`);
      out(`  dashboard: ${loginUrl}   remote-sim: ${system.remoteSimUrl}/ledger   Press Ctrl-C to stop.`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
    }
    return errors.length > 0 ? 1 : 0;
  } finally {
    out('  stopping ...');
    stopping = true;
    await Promise.allSettled(closers.map((c) => c()));
    await store?.close();
    await up.stop();
  }
}

function toView(doc: ProcessDocument): OrderView {
  return {
    orderId: doc.orderId,
    state: doc.state,
    steps: doc.steps.map((s) => ({ name: s.name, state: s.state, dispatches: s.dispatches })),
    failureCount: doc.failureCount,
    attempt: doc.attempt,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}
