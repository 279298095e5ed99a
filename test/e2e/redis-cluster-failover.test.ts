import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QueueNames, queueKeyPrefix } from '@sas/contracts';
import { rawRedisCommand, type OutputLine, type ServiceRole } from '@sas/stack';
import { scrapeMetrics } from '@sas/testkit';
import { repeatedDispatches, repeatedEffects } from '../support/ledger-checks';
import { plainArrivals, withPlainRemote } from '../support/remote-arrivals';
import { statusStreamOf } from '../support/status-stream';
import { SystemFixture } from '../support/system-fixture';
import { fastRoleEnv } from '../support/test-workflows';

const ORDERS = 40;

/**
 * What a writer logs when a send met the dead master: a transition's outbox kept for a later
 * delivery, or a dispatch released for another claim (its send timed out).
 */
function failedSends(lines: readonly OutputLine[]): OutputLine[] {
  return lines.filter((l) => {
    const msg = String(l.json?.['msg'] ?? '');
    return msg.startsWith('outbox not delivered yet') || /^dispatch of \S+ not sent/.test(msg);
  });
}

/** The lines in which a service's Redis connection reports that the node at `port` left it (the bus logs each). */
function nodeLeft(lines: readonly OutputLine[], port: number): OutputLine[] {
  return lines.filter((l) => l.json?.['node'] === `127.0.0.1:${port}` && String(l.json?.['msg'] ?? '').startsWith('Redis Cluster node'));
}

describe('when a Redis Cluster master is killed (kill -9) mid-run and its replica takes over', () => {
  let fx: SystemFixture;

  beforeAll(async () => {
    const roleEnv = withPlainRemote(fastRoleEnv());
    // The supervisor serves /metrics (a free port): its count of outboxes it had to deliver again.
    roleEnv['supervisor'] = { ...roleEnv['supervisor'], PROBE_PORT: '0' };
    fx = await SystemFixture.start('redis-cluster-failover', { schedulers: 2, supervisors: 1 }, roleEnv, { redisTopology: 'cluster' });
  });
  afterAll(() => fx?.stop());

  it('loses no order, no status event and applies no step twice, with no dead letter and every service still running', async () => {
    // Payments answer after 200 ms, so calls are in flight, and held under their job locks, on the
    // master that dies. The workflow is the real one: its complete-by (5 s a step) outlasts a
    // failover; the test workflows' 1.5 s would turn the outage into failed steps.
    await fx.setFaults('payment', { latencyMs: 200 });
    const ids = Array.from({ length: ORDERS }, (_, i) => `failover-${String(i).padStart(2, '0')}`);
    const firstHalf = ids.slice(0, ORDERS / 2);
    await fx.submit(firstHalf.map((id) => fx.order(id)));
    await fx.stack.waitFor(async () => (await fx.processes({ orderId: { $in: firstHalf }, 'steps.1.state': 'Running' })).length > 0, {
      timeoutMs: 30_000,
      description: 'payments in flight',
    });

    const cluster = fx.stack.redisCluster!;
    const payments = QueueNames.agentRequests('payment');
    const victim = await cluster.masterIndexServing(`${queueKeyPrefix(fx.stack.queuePrefix, payments)}:${payments}:wait`);
    // The status queue's hash slot is on the same master (3 masters split the slots evenly), so
    // submission's connection to it is certain to meet the kill too (checked at the end).
    expect(await cluster.masterIndexServing(`${queueKeyPrefix(fx.stack.queuePrefix, fx.replyTo)}:${fx.replyTo}:wait`)).toBe(victim);
    // The outbox's sends to that master were confirmed by its replica (WAIT, docs/deployment.md#failover)
    // before the kill: the services knew of the replica, so the wait was in play when it mattered.
    const commandStats = await rawRedisCommand((await cluster.masterPorts())[victim] as number, 'INFO commandstats', 2000);
    const waitsBeforeKill = Number(commandStats?.match(/^cmdstat_wait:calls=(\d+)/m)?.[1] ?? 0);
    const { killedPort, promotedPort, replication } = await cluster.killMaster(victim);
    expect(await cluster.masterPorts()).toContain(promotedPort);
    expect(await cluster.masterPorts()).not.toContain(killedPort);

    // Orders submitted after the failover go through the promoted replica as well.
    await fx.submit(ids.slice(ORDERS / 2).map((id) => fx.order(id)));
    const docs = await fx.waitForStates(ids, ['Processed'], 120_000);
    expect(docs).toHaveLength(ORDERS);

    const ledger = (await fx.ledger()).filter((e) => ids.includes(e.orderId));
    expect(repeatedEffects(ledger)).toEqual([]);
    expect(repeatedDispatches(await plainArrivals(fx, ids))).toEqual([]);
    expect(ledger).toHaveLength(ORDERS * 3);
    expect(await fx.deadLetters()).toEqual([]);
    expect(fx.system.all.every((p) => p.running)).toBe(true);
    // No consumer stopped taking work on the way: the bus's watch would have replaced its worker
    // (docs/liveness.md), which keeps a service going but here would hide the hang it recovers from.
    expect(fx.system.all.flatMap((p) => p.lines.filter((l) => l.json?.['msg'] === 'consumer stuck: replacing its worker').map((l) => `${p.name}: ${l.text}`))).toEqual([]);
    // Status events owed during the outage stay in the outbox and are delivered once Redis answers.
    await fx.stack.waitFor(() => ids.every((id) => fx.statusesOf(id).includes('Processed')), {
      timeoutMs: 30_000,
      description: 'a Processed status for every order',
    });
    // Every order whose statuses differ, with what it got: one look shows whether a status is missing
    // from one order or late for several (a delivery the failover delayed arrives after later ones).
    const expected = ['Received', 'Processing', 'StepCompleted', 'Processed'];
    const differing = ids
      .map((id) => ({ id, statuses: fx.statusesOf(id) }))
      .filter(({ statuses }) => JSON.stringify([...new Set(statuses)]) !== JSON.stringify(expected) || statuses.filter((s) => s === 'StepCompleted').length !== 3);
    // For an order whose stream is not complete: each revision of its history, the status events it
    // got, and what Redis holds of the job of a revision that got none ('unknown': acknowledged, then
    // gone with the master; 'active': taken by a consumer that never heard back). With the offsets
    // around the kill, this tells a write lost to asynchronous replication from a late delivery.
    const streams = await Promise.all(differing.map(async (d) => ({ ...d, stream: (await statusStreamOf(fx, d.id)).filter((r) => r.missingJob) })));
    writeFileSync(join(fx.stack.logDir, 'failover-evidence.json'), JSON.stringify({ replication, waitsBeforeKill, differing: streams }, null, 1));
    expect({ differing: streams, replication }).toEqual({ differing: [], replication });
    expect(waitsBeforeKill).toBeGreaterThan(0);

    // Not vacuous: the failover reached the services while they worked. The payment agent (whose
    // queue lived on the killed master) and submission (every Received went to app.status, on the
    // same master) had connections to it, and each logged that its node left them. Whether a send
    // also failed, or the supervisor had to deliver an outbox again, depends on where the kill lands:
    // ioredis often retries the commands that met the dead master until the replica answers, and
    // nothing fails (each of those was absent in some runs); they are reported, not required.
    const failed = failedSends(fx.system.all.flatMap((p) => [...p.lines]));
    const supervisor = fx.system.byRole('supervisor')[0]!;
    const probePort = supervisor.lines.find((l) => l.json?.['probePort'] !== undefined)?.json?.['probePort'];
    const metrics = await scrapeMetrics(`http://127.0.0.1:${String(probePort)}/metrics`);
    const redelivered = metrics.total('sas_supervisor_outboxes_delivered_total');
    const sawTheMasterLeave = (role: ServiceRole): boolean => fx.system.byRole(role).some((p) => nodeLeft(p.lines, killedPort).length > 0);
    expect({ failedSends: failed.length, redelivered, paymentAgent: sawTheMasterLeave('agent-payment'), submission: sawTheMasterLeave('submission') }).toMatchObject({
      paymentAgent: true,
      submission: true,
    });
  }, 240_000);
});
