import { Queue } from 'bullmq';
import {
  OperatorCommandResult,
  QueueNames,
  ReplyTo,
  SCHEMA_VERSION,
  SubmissionMessage,
  describeIssues,
  parseRedisUrl,
  queueKeyPrefix,
  redactRedisUrl,
  queuePrefixProblem,
  type JsonObject,
  type SignalResult,
  type StatusEvent,
  StatusEvents,
  type StatusKind,
} from '@sas/contracts';
import { activeTraceparent } from './active-traceparent';
import { ClientClosedError } from './errors/client-closed-error';
import { InvalidOrderError } from './errors/invalid-order-error';
import { PayloadChecks, type KnownWorkflow } from './payload-checks';
import { NoAnswerError } from './errors/no-answer-error';
import { SendTimeoutError } from './errors/send-timeout-error';
import { StatusTimeoutError } from './errors/status-timeout-error';
import { DEFAULT_JOB_OPTIONS } from './job-options';
import { createRedisConnection, redisLivenessOptions, type RedisConnection } from './redis-connection';
import { requestReply } from './request-reply';
import { sendSignal, type SignalOptions } from './send-signal';
import { signalWhenFound } from './signal-when-found';
import { StatusStream } from './status-stream';
import { submissionJobId } from './submission-job-id';
import { withDeadline } from './with-deadline';

/** Options of {@link SasClient}. */
export interface SasClientOptions {
  /**
   * The system's Redis, as its services' REDIS_URL: `redis://127.0.0.1:6379`, or a Redis Cluster such as
   * `redis-cluster://10.0.0.1:6379,10.0.0.2:6379` (`rediss-cluster://` for TLS). See `parseRedisUrl` in `@sas/contracts`.
   */
  redisUrl: string;
  /** BullMQ key prefix of the system (its services' QUEUE_PREFIX, without a hash tag). @default 'sas' */
  prefix?: string;
  /**
   * The queue this application receives status events on; every order submitted through this
   * client names it unless the order names its own. Needed for `statuses`, `waitFor` and
   * `onStatus`. Give each application instance its own queue: two consumers of one queue each
   * get only some of the events.
   */
  replyTo?: string;
  /**
   * Which status events the orders submitted through this client ask for, unless an order names
   * its own: `all`, or `final` for `Received` and the outcome only, without the progress events
   * `Processing` and `StepCompleted` (4 fewer queue jobs for a 3-step order; decision 59).
   * @default 'all'
   */
  statusEvents?: StatusEvents;
  /** A send that has not reached Redis by then fails with a {@link SendTimeoutError}. @default 5000 */
  sendTimeoutMs?: number;
  /**
   * How long `close()` waits for its connections to close cleanly (an event being handled, the
   * queue's own close) before it drops them: with Redis gone a clean close never ends. @default 5000
   */
  closeTimeoutMs?: number;
  /**
   * Workflow definitions (as deployed) whose `inputSchema` the client checks each order's payload
   * against before sending: a payload the submission service would reject is refused with an
   * {@link InvalidOrderError} naming each bad field, and nothing is sent. Orders for other
   * workflows are sent unchecked. @default none
   */
  workflows?: readonly KnownWorkflow[];
  /** How many status event ids are remembered to drop redelivered events. @default 100000 */
  dedupWindow?: number;
  /** How many orders' status events are kept for `waitFor`/`statuses` called after they arrived. @default 10000 */
  historyLimit?: number;
  /** A message on the reply queue that is not a status event (it is consumed and dropped). @default ignored */
  onInvalidStatus?: (raw: unknown, issues: readonly string[]) => void;
  /** A Redis connection error; the client reconnects by itself. @default ignored */
  onError?: (error: Error) => void;
}

/** An order as the application writes it: `schemaVersion` and `replyTo` are filled in by the client. */
export type OrderInput = Omit<SubmissionMessage, 'schemaVersion' | 'replyTo'> & Partial<Pick<SubmissionMessage, 'schemaVersion' | 'replyTo'>>;

/** What {@link SasClient.submit} queued. */
export interface Submitted {
  orderId: string;
  /** The BullMQ job id (see {@link submissionJobId}). */
  jobId: string;
  /** The message as sent, after validation. */
  message: SubmissionMessage;
}

/** Options of {@link SasClient.waitFor}. */
export interface WaitForOptions {
  /** Statuses that end the wait, e.g. `['Processed', 'Compensated', 'Canceled']`. */
  until: readonly StatusKind[];
  /** @default 30000 */
  timeoutMs?: number;
}

/** Options of {@link SasClient.cancel} and {@link SasClient.resubmit}. */
export interface OperatorCommandOptions {
  /** Who asks, recorded in the process history. */
  by: string;
  /** Why, recorded in the process history. */
  reason?: string;
  /** How long to wait for a scheduler's answer. @default 30000 */
  timeoutMs?: number;
}

/** Statuses after which an order sends nothing more on its own (a `Failed` process in Error waits for an operator). */
export const FINAL_STATUSES: readonly StatusKind[] = ['Processed', 'Compensated', 'Canceled', 'Duplicate', 'Rejected'];

/**
 * An application's handle on a Scheduler Agent Supervisor system: submits orders to the
 * `submission` queue, follows their status events on the application's own `replyTo` queue (each
 * event once, however often it is delivered), and sends operator commands.
 *
 * It opens one Redis connection for sending at construction, and one for status events on the
 * first `statuses`, `waitFor` or `onStatus`; `close()` releases them.
 *
 * @example
 * ```ts
 * const client = new SasClient({ redisUrl: 'redis://127.0.0.1:6379', replyTo: 'shop.status' });
 * await client.submit({ orderId: 'order-1', workflow: 'order-fulfilment', payload: { sku: 'kettle', quantity: 1, amount: 2500 } });
 * const outcome = await client.waitFor('order-1', { until: ['Processed', 'Compensated'], timeoutMs: 60_000 });
 * await client.close();
 * ```
 */
export class SasClient {
  readonly prefix: string;
  readonly replyTo: string | undefined;
  private readonly connection: RedisConnection;
  private readonly submissions: Queue;
  private readonly sendTimeoutMs: number;
  private stream: StatusStream | undefined;
  private listenConnection: RedisConnection | undefined;
  private closing: Promise<void> | undefined;
  private readonly payloadChecks: PayloadChecks;

  constructor(private readonly options: SasClientOptions) {
    // Throws saying what is wrong with the URL and which forms are accepted (one Redis or a Redis Cluster).
    parseRedisUrl(options.redisUrl);
    const prefixProblem = options.prefix === undefined ? undefined : queuePrefixProblem(options.prefix);
    if (prefixProblem) throw new Error(`prefix: ${prefixProblem}`);
    const replyTo = options.replyTo === undefined ? undefined : ReplyTo.safeParse(options.replyTo);
    if (replyTo && !replyTo.success) throw new Error(`replyTo '${options.replyTo}' is not usable: ${describeIssues(replyTo.error).join('; ')}`);
    if (options.statusEvents !== undefined && !StatusEvents.safeParse(options.statusEvents).success) {
      throw new Error(`statusEvents must be one of ${StatusEvents.options.map((o) => `'${o}'`).join(', ')} (got '${String(options.statusEvents)}'); leave it out for 'all'`);
    }
    this.prefix = options.prefix ?? 'sas';
    this.replyTo = replyTo?.data;
    this.sendTimeoutMs = options.sendTimeoutMs ?? 5_000;
    this.payloadChecks = new PayloadChecks(options.workflows ?? []);
    this.connection = createRedisConnection(options.redisUrl, redisLivenessOptions('commands'));
    this.connection.on('error', (err) => this.options.onError?.(err));
    this.submissions = new Queue(QueueNames.submission, { connection: this.connection, prefix: queueKeyPrefix(this.prefix, QueueNames.submission) });
  }

  /**
   * Validates an order and puts it on the `submission` queue. Sending the same submission again
   * (same orderId, workflow, version, payload and replyTo) is safe: while its first job is kept it
   * adds nothing, later it is answered as the first time. A different submission under a taken
   * orderId is queued and answered with `Duplicate`.
   *
   * @throws {InvalidOrderError} naming each invalid field; nothing was sent
   * @throws {SendTimeoutError} when Redis did not take it within `sendTimeoutMs`; send it again
   */
  async submit(order: OrderInput): Promise<Submitted> {
    const [submitted] = await this.submitAll([order]);
    if (!submitted) throw new Error('submitAll returned nothing for one order');
    return submitted;
  }

  /**
   * {@link submit} for many orders in one round trip. Every order is validated first; if one is
   * invalid, none is sent.
   */
  async submitAll(orders: readonly OrderInput[]): Promise<Submitted[]> {
    this.assertOpen('submit');
    const submitted = orders.map((order) => this.validate(order));
    if (submitted.length === 0) return [];
    await withDeadline(
      this.submissions.addBulk(submitted.map((s) => ({ name: QueueNames.submission, data: s.message, opts: { ...DEFAULT_JOB_OPTIONS, jobId: s.jobId } }))),
      this.sendTimeoutMs,
      () => new SendTimeoutError(QueueNames.submission, this.sendTimeoutMs, redactRedisUrl(this.options.redisUrl)),
    );
    return submitted;
  }

  /**
   * The status events of one order: those already received, then each new one as it arrives,
   * each once. It ends when `signal` aborts, the loop breaks, or the client closes.
   *
   * @example
   * ```ts
   * for await (const event of client.statuses('order-1')) {
   *   console.log(event.status, event.step ?? '');
   *   if (FINAL_STATUSES.includes(event.status)) break;
   * }
   * ```
   */
  async *statuses(orderId: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<StatusEvent, void, undefined> {
    const stream = await this.listen('statuses');
    const { signal } = options;
    // Copied and subscribed in the same tick, so no event falls between the two.
    const pending = [...stream.eventsOf(orderId)];
    let ended = false;
    let wake: (() => void) | undefined;
    const unsubscribe = stream.subscribe(orderId, (event) => {
      if (event) pending.push(event);
      else ended = true;
      wake?.();
    });
    const onAbort = (): void => wake?.();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        let event: StatusEvent | undefined;
        while ((event = pending.shift())) yield event;
        if (ended || signal?.aborted) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Waits for the first status of `orderId` among `until` (one already received counts) and
   * resolves with that event.
   *
   * @throws {StatusTimeoutError} listing the statuses seen, when none arrived within `timeoutMs`
   */
  async waitFor(orderId: string, options: WaitForOptions): Promise<StatusEvent> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const wanted = new Set(options.until);
    const seen: StatusEvent[] = [];
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      for await (const event of this.statuses(orderId, { signal: abort.signal })) {
        seen.push(event);
        if (wanted.has(event.status)) return event;
      }
    } finally {
      clearTimeout(timer);
    }
    if (this.closing) throw new ClientClosedError('waitFor');
    throw new StatusTimeoutError(orderId, [...options.until], seen, timeoutMs, { replyTo: this.replyTo ?? '', prefix: this.prefix });
  }

  /**
   * Calls `listener` with every new status event on the reply queue (of any order), each once.
   * Resolves, once the client listens, with the function that stops it.
   */
  async onStatus(listener: (event: StatusEvent) => void): Promise<() => void> {
    const stream = await this.listen('onStatus');
    return stream.subscribe(undefined, (event) => event && listener(event));
  }

  /**
   * Asks the schedulers to stop an unfinished process and undo what it did; resolves with their
   * answer (`ok: false` with the reason when they refuse, e.g. the process already finished).
   *
   * @throws {NoAnswerError} when no scheduler answered within `timeoutMs`
   */
  cancel(processId: string, options: OperatorCommandOptions): Promise<OperatorCommandResult> {
    return this.command('cancel', processId, options);
  }

  /**
   * Asks the schedulers to restart a process in Error from its failed step.
   *
   * @throws {NoAnswerError} when no scheduler answered within `timeoutMs`
   */
  resubmit(processId: string, options: OperatorCommandOptions): Promise<OperatorCommandResult> {
    return this.command('resubmit', processId, options);
  }

  /**
   * Sends the named signal to the process of `orderId` (an approval, a payment confirmed elsewhere)
   * and resolves with the scheduler's answer: `consumed` by the signal step waiting for it, `kept`
   * until that step comes up, a `repeat` of a signal already received (counted once, answered as
   * then), or `ok: false` when refused (the process finished, or no such order). Retrying a call
   * is safe: the default signal id is derived from the orderId, name and data.
   *
   * An order not found yet is waited for within `timeoutMs`: a signal sent right after `submit`
   * would otherwise find no order, the submission not being stored yet. It is sent again after a
   * short backoff until the order exists or `timeoutMs` passes, then answered `not-found`, saying so.
   *
   * @throws {InvalidSignalError} naming each invalid field; nothing was sent
   * @throws {NoAnswerError} when no scheduler answered within `timeoutMs` (the signal stays queued; sending it again is safe)
   */
  async signal(orderId: string, name: string, data: JsonObject | null = null, options: SignalOptions = {}): Promise<SignalResult> {
    this.assertOpen('signal');
    const timeoutMs = options.timeoutMs ?? 30_000;
    const where = { redisUrl: this.options.redisUrl, prefix: this.prefix };
    // An order submitted just before is stored only once a submission service took it: wait for it.
    const outcome = await signalWhenFound(orderId, timeoutMs, (left) => sendSignal(where, { orderId }, name, data, { ...options, timeoutMs: left }), {
      now: () => Date.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    });
    if (outcome.answered) return outcome.reply;
    throw new NoAnswerError(`signal ${name}`, orderId, timeoutMs, { redisUrl: redactRedisUrl(this.options.redisUrl), prefix: this.prefix });
  }

  /**
   * Stops listening (an event being handled is finished first), ends open `statuses` loops and closes
   * the connections. Bounded by `closeTimeoutMs`: past it (Redis gone, so BullMQ's closes wait for a
   * connection that never comes back) the subscriptions are ended and the connections dropped. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const clean = (async () => {
        await this.stream?.close();
        await this.submissions.close().catch(() => undefined);
        await Promise.all(
          // QUIT waits for a connection that is not up (Redis or a cluster unreachable): such a one is dropped instead.
          [this.connection, this.listenConnection].map((c) => (c?.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c?.disconnect())),
        );
      })();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.options.closeTimeoutMs ?? 5_000)));
      const outcome = await Promise.race([clean.then(() => 'closed' as const, () => 'closed' as const), late]);
      clearTimeout(timer);
      if (outcome === 'late') {
        this.stream?.abandon();
        this.connection.disconnect();
        this.listenConnection?.disconnect();
      }
    })();
    return this.closing;
  }

  private validate(order: OrderInput): Submitted {
    const replyTo = order.replyTo ?? this.replyTo;
    // The order's trace continues the application's: its own traceparent, else its active span's.
    const traceparent = order.traceparent ?? activeTraceparent();
    const statusEvents = order.statusEvents ?? this.options.statusEvents;
    const parsed = SubmissionMessage.safeParse({
      ...order,
      schemaVersion: order.schemaVersion ?? SCHEMA_VERSION,
      ...(replyTo ? { replyTo } : {}),
      ...(traceparent !== undefined && { traceparent }),
      ...(statusEvents !== undefined && { statusEvents }),
    });
    if (!parsed.success) {
      const orderId = typeof (order as { orderId?: unknown }).orderId === 'string' ? order.orderId : undefined;
      throw new InvalidOrderError(orderId, describeIssues(parsed.error));
    }
    const issues = this.payloadChecks.issues(parsed.data.workflow, parsed.data.workflowVersion, parsed.data.payload);
    if (issues.length > 0) throw new InvalidOrderError(parsed.data.orderId, issues);
    return { orderId: parsed.data.orderId, jobId: submissionJobId(parsed.data), message: parsed.data };
  }

  private async listen(operation: string): Promise<StatusStream> {
    this.assertOpen(operation);
    if (!this.replyTo) {
      throw new Error(`'${operation}' needs a reply queue: create the SasClient with replyTo (the queue your orders name for their status events)`);
    }
    if (!this.stream) {
      this.listenConnection = createRedisConnection(this.options.redisUrl, redisLivenessOptions('consumer'));
      this.listenConnection.on('error', (err) => this.options.onError?.(err));
      this.stream = new StatusStream({
        connection: this.listenConnection,
        prefix: this.prefix,
        queue: this.replyTo,
        dedupWindow: this.options.dedupWindow ?? 100_000,
        historyLimit: this.options.historyLimit ?? 10_000,
        onInvalidStatus: (raw, issues) => this.options.onInvalidStatus?.(raw, issues),
        onError: (err) => this.options.onError?.(err),
      });
    }
    await this.stream.start();
    return this.stream;
  }

  private async command(command: 'cancel' | 'resubmit', processId: string, options: OperatorCommandOptions): Promise<OperatorCommandResult> {
    this.assertOpen(command);
    const timeoutMs = options.timeoutMs ?? 30_000;
    const { by, reason } = options;
    const outcome = await requestReply({
      redisUrl: this.options.redisUrl,
      prefix: this.prefix,
      queue: QueueNames.operatorCommands,
      request: (replyTo) => ({ schemaVersion: SCHEMA_VERSION, command, processId, by, ...(reason ? { reason } : {}), replyTo }),
      reply: OperatorCommandResult,
      accept: (result) => result.processId === processId && result.command === command,
      timeoutMs,
      replyQueuePrefix: 'operator.replies',
    });
    if (outcome.answered) return outcome.reply;
    throw new NoAnswerError(command, processId, timeoutMs, { redisUrl: redactRedisUrl(this.options.redisUrl), prefix: this.prefix });
  }

  private assertOpen(operation: string): void {
    if (this.closing) throw new ClientClosedError(operation);
  }
}
