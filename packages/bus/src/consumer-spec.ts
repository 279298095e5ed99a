import type { z } from 'zod';
import type { ConsumerLock } from './consumer-lock';
import type { RetryPolicy } from './retry-policy';

/** Where a message came from, for logs and dead letters. */
export interface MessageMeta {
  jobId: string;
  queue: string;
  /** Deliveries before this one (0 on the first), crashed and retried ones included. */
  attemptsMade: number;
}

/** What a consumer does with each message of one queue. */
export interface ConsumerSpec<S extends z.ZodTypeAny> {
  queue: string;
  /** Every message is validated with it before `handle` sees it. */
  schema: S;
  /** Jobs handled at once by this process. @default 8 */
  concurrency?: number;
  /** How a throwing handler is retried, whatever the producer set. @default DEFAULT_RETRY_POLICY */
  retry?: Partial<RetryPolicy>;
  /** Lock and stalled-check timing. @default defaultLockFor(queue) */
  lock?: Partial<ConsumerLock>;
  handle(message: z.output<S>, meta: MessageMeta): Promise<void>;
  /**
   * Called with a message that failed validation (or whose handler failed for good), after it
   * has been dead-lettered: answer the sender here when its reply queue can be read.
   */
  onRejected?(raw: unknown, reason: string, issues: readonly string[]): Promise<void>;
}
