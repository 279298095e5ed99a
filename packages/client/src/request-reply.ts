import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { z } from 'zod';
import { CLOSED_REPLY_QUEUE_TTL_SECONDS, queueKeyPrefix, replyQueueClosedKey } from '@sas/contracts';
import { createRedisConnection, redisLivenessOptions } from './redis-connection';
import { DEFAULT_JOB_OPTIONS } from './job-options';

/** Options of {@link requestReply}. */
export interface RequestReplyOptions<S extends z.ZodTypeAny> {
  redisUrl: string;
  /** BullMQ key prefix of the system (QUEUE_PREFIX). */
  prefix: string;
  /** Queue the request goes to, e.g. `operator.commands`. */
  queue: string;
  /** Builds the request from the private reply queue's name, so the answer comes back there. */
  request: (replyTo: string) => unknown;
  /** Schema of the answer; anything else arriving on the reply queue is ignored. */
  reply: S;
  /** Whether a valid answer belongs to this request (e.g. same `processId`). @default every valid answer */
  accept?: (answer: z.infer<S>) => boolean;
  /** How long to wait for the answer. */
  timeoutMs: number;
  /** Start of the private reply queue's name; a random suffix makes it unique. @default 'replies' */
  replyQueuePrefix?: string;
}

/** What {@link requestReply} resolves with: a timeout is an expected outcome, not an exception. */
export type RequestReplyOutcome<T> = { answered: true; reply: T } | { answered: false; replyTo: string };

/**
 * Sends one request and waits for its answer on a private reply queue that exists only for this
 * call, so an answer can never be taken for another caller's. It exists because operator tools
 * (the CLI, the dashboard) ask a scheduler to act and must show what it said; BullMQ's
 * `waitUntilFinished` is unreliable across processes (see DESIGN.md), the reply queue is the design.
 *
 * Opens its own connections and removes the reply queue before returning, leaving a marker (`replyQueueClosedKey` in `@sas/contracts`) so a
 * late answer sent with `Bus.sendReply` (`@sas/bus`) does not create the queue again.
 *
 * @example
 * ```ts
 * const outcome = await requestReply({
 *   redisUrl, prefix, queue: QueueNames.operatorCommands, reply: OperatorCommandResult, timeoutMs: 15_000,
 *   request: (replyTo) => ({ schemaVersion: 1, command: 'cancel', processId, by: 'alice', replyTo }),
 *   accept: (r) => r.processId === processId,
 * });
 * if (!outcome.answered) throw new Error('no scheduler answered');
 * ```
 */
export async function requestReply<S extends z.ZodTypeAny>(options: RequestReplyOptions<S>): Promise<RequestReplyOutcome<z.infer<S>>> {
  const replyTo = `${options.replyQueuePrefix ?? 'replies'}.${randomBytes(6).toString('hex')}`;
  const connection = createRedisConnection(options.redisUrl, redisLivenessOptions('commands'));
  // BullMQ does not close connections it was given, so this call keeps both and quits them itself.
  const workerConnection = createRedisConnection(options.redisUrl, redisLivenessOptions('consumer'));
  // Failures reach the caller through the commands; unheard 'error' events would be printed by ioredis.
  for (const c of [connection, workerConnection]) c.on('error', () => undefined);
  const queue = new Queue(options.queue, { connection, prefix: queueKeyPrefix(options.prefix, options.queue) });
  let settle: (answer: z.infer<S>) => void = () => undefined;
  const answered = new Promise<z.infer<S>>((resolve) => (settle = resolve));
  const worker = new Worker(
    replyTo,
    async (job) => {
      const parsed = options.reply.safeParse(job.data);
      if (parsed.success && (options.accept?.(parsed.data) ?? true)) settle(parsed.data);
    },
    { connection: workerConnection, prefix: queueKeyPrefix(options.prefix, replyTo) },
  );
  let timer: NodeJS.Timeout | undefined;
  try {
    await queue.add(options.queue, options.request(replyTo), DEFAULT_JOB_OPTIONS);
    return await Promise.race([
      answered.then((reply): RequestReplyOutcome<z.infer<S>> => ({ answered: true, reply })),
      new Promise<RequestReplyOutcome<z.infer<S>>>((resolve) => {
        timer = setTimeout(() => resolve({ answered: false, replyTo }), options.timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    // Marked first: a late answer (Bus.sendReply) is then dropped, or removes the queue it re-created.
    await connection.set(replyQueueClosedKey(options.prefix, replyTo), '1', 'EX', CLOSED_REPLY_QUEUE_TTL_SECONDS).catch(() => undefined);
    await worker.close();
    // The reply queue was this call's alone; leaving it would pile up one set of keys per request.
    const replies = new Queue(replyTo, { connection, prefix: queueKeyPrefix(options.prefix, replyTo) });
    await replies.obliterate({ force: true }).catch(() => undefined);
    await replies.close();
    await queue.close();
    await Promise.all([connection, workerConnection].map((c) => (c.status === 'ready' ? c.quit().catch(() => c.disconnect()) : c.disconnect())));
  }
}
