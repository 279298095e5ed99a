import { Queue } from 'bullmq';
import type { Db, MongoClient } from 'mongodb';
import { createRedisConnection, type RedisConnection } from '@sas/client';
import { QueueNames, SCHEMA_VERSION, queueKeyPrefix, type ProcessDocument, type StatusEvent, type SubmissionMessage } from '@sas/contracts';
import { LocalSystem, findWorkspaceRoot, type SystemTopology } from '@sas/stack';
import { QueueCollector, TestStack, type RedisTopology } from '@sas/testkit';

/** One effect recorded by remote-sim, as `GET /ledger` lists it (in the order applied). */
export interface LedgerEffect {
  effectId: string;
  service: string;
  operation: string;
  orderId: string;
  idempotencyKey: string;
  /** When remote-sim applied it, epoch ms. */
  at: number;
  result: Readonly<Record<string, unknown>>;
  /** Only on an undo that named its forward call: that call's idempotency key (which it tombstones). */
  compensates?: string;
  /** The earlier steps' results the call was given (`results` of its request), keyed by step name. */
  inputs?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/**
 * A private stack (Redis, MongoDB) with the whole system running as real processes, plus the
 * application's side: a submission queue and a collector on its status queue.
 */
export class SystemFixture {
  private constructor(
    readonly stack: TestStack,
    readonly system: LocalSystem,
    readonly db: Db,
    private readonly client: MongoClient,
    readonly statuses: QueueCollector<StatusEvent>,
    readonly alerts: QueueCollector<Record<string, unknown>>,
    private readonly submission: Queue,
    private readonly redis: RedisConnection,
    readonly replyTo: string,
  ) {}

  static async start(
    name: string,
    topology: SystemTopology,
    roleEnv: Partial<Record<string, NodeJS.ProcessEnv>> = {},
    options: { redisAppendOnly?: boolean; mongoReplicaSet?: string; redisTopology?: RedisTopology } = {},
  ): Promise<SystemFixture> {
    const mongo = { ttlIntervalMs: 500, ...(options.mongoReplicaSet !== undefined ? { replicaSet: options.mongoReplicaSet } : {}) };
    // A cluster run of a test keeps its own log directory beside the single-Redis run's.
    const stackName = options.redisTopology === 'cluster' ? `${name}-cluster` : name;
    const stack = await TestStack.start({ name: stackName, mongo, redisAppendOnly: options.redisAppendOnly, redisTopology: options.redisTopology });
    let system: LocalSystem | undefined;
    try {
      system = await LocalSystem.start({ root: findWorkspaceRoot(), env: stack.env, topology, roleEnv, logDir: stack.logDir });
      const client = await stack.mongoClient();
      const replyTo = 'app.status';
      const redisUrl = stack.env['REDIS_URL'] ?? '';
      const statuses = new QueueCollector<StatusEvent>({ redisUrl, prefix: stack.queuePrefix, queue: replyTo });
      await statuses.start();
      const alerts = new QueueCollector<Record<string, unknown>>({ redisUrl, prefix: stack.queuePrefix, queue: QueueNames.alerts });
      await alerts.start();
      const redis = createRedisConnection(redisUrl);
      redis.on('error', () => undefined); // a failover or restart test takes Redis away on purpose
      const submission = new Queue(QueueNames.submission, { connection: redis, prefix: queueKeyPrefix(stack.queuePrefix, QueueNames.submission) });
      return new SystemFixture(stack, system, client.db(), client, statuses, alerts, submission, redis, replyTo);
    } catch (e) {
      await system?.stop();
      await stack.stop();
      throw e;
    }
  }

  /** A valid order for the built-in `order-fulfilment` workflow. */
  order(orderId: string, extra: Partial<SubmissionMessage> = {}): SubmissionMessage {
    return {
      schemaVersion: SCHEMA_VERSION,
      orderId,
      workflow: 'order-fulfilment',
      payload: { sku: 'kettle', quantity: 1, amount: 2500 },
      replyTo: this.replyTo,
      ...extra,
    };
  }

  /** Puts raw messages on the submission queue, exactly as an application would. */
  async submit(messages: readonly unknown[]): Promise<void> {
    await this.submission.addBulk(messages.map((data) => ({ name: 'submission', data })));
  }

  processes(filter: Record<string, unknown> = {}): Promise<ProcessDocument[]> {
    return this.db.collection<ProcessDocument>('processes').find(filter).toArray();
  }

  /** Waits until every listed order is in one of `states`; returns their documents. */
  async waitForStates(orderIds: readonly string[], states: readonly string[], timeoutMs: number): Promise<ProcessDocument[]> {
    return this.stack.waitFor(
      async () => {
        const docs = await this.processes({ orderId: { $in: [...orderIds] } });
        const done = docs.filter((d) => states.includes(d.state));
        return done.length === orderIds.length ? docs : null;
      },
      // waitFor's default 50 ms between probes: the tests wait on this 46 times, 75 ms sooner each on average.
      { timeoutMs, description: `${orderIds.length} orders to reach ${states.join('/')}` },
    );
  }

  async remote(path: string, init: RequestInit = {}): Promise<unknown> {
    const res = await fetch(`${this.system.remoteSimUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    if (!res.ok) throw new Error(`remote-sim ${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  async ledger(): Promise<LedgerEffect[]> {
    const body = (await this.remote('/ledger')) as { effects: LedgerEffect[] };
    return body.effects;
  }

  async setFaults(service: string, faults: Record<string, unknown>): Promise<void> {
    await this.remote(`/admin/faults/${service}`, { method: 'PUT', body: JSON.stringify(faults) });
  }

  /** Status events of one order, in arrival order. */
  statusesOf(orderId: string): string[] {
    return this.statuses.messages.filter((m) => m.orderId === orderId).map((m) => m.status);
  }

  async deadLetters(): Promise<Record<string, unknown>[]> {
    const q = this.queue(QueueNames.deadLetter);
    try {
      const jobs = await q.getJobs(['waiting', 'completed', 'failed', 'delayed', 'active']);
      return jobs.map((j) => j.data as Record<string, unknown>);
    } finally {
      await q.close();
    }
  }

  /** A handle on one of the system's queues, as its services open it (to be closed by the caller). */
  queue(name: string): Queue {
    return new Queue(name, { connection: this.redis, prefix: queueKeyPrefix(this.stack.queuePrefix, name) });
  }

  async stop(): Promise<void> {
    // Bounded: after a Redis restart a BullMQ close can hang, and teardown must still reach the processes.
    const bounded = (p: Promise<unknown>): Promise<unknown> =>
      Promise.race([p, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await Promise.allSettled([this.statuses.close(), this.alerts.close(), bounded(this.submission.close())]);
    await this.submission.disconnect().catch(() => undefined);
    this.redis.disconnect();
    await this.system.stop();
    await this.client.close().catch(() => undefined);
    await this.stack.stop();
  }
}
