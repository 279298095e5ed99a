import { TransientError, mongoTransientReason, redisTransientReason } from '@sas/runtime';

/**
 * How a consumer retries a message whose handler threw. It belongs to the consumer, not to the
 * job: a producer that set no `attempts` (BullMQ's default is a single try) must not turn a
 * MongoDB blip into a dead letter.
 */
export interface RetryPolicy {
  /** Deliveries before the message is dead-lettered, the first one included. */
  attempts: number;
  /** Delay before the second delivery; doubled for each one after it. */
  backoffMs: number;
  /** Ceiling of the doubled delay. */
  maxBackoffMs: number;
  /**
   * Ceiling of the delay after a transient MongoDB fault (see {@link storeFaultDelayMs}), kept
   * short so that, once a new primary is elected, a waiting reply is applied before its step's
   * complete-by passes rather than up to `maxBackoffMs` later.
   */
  storeFaultMaxBackoffMs: number;
}

/** 8 deliveries over about 30 s: long enough to ride out a MongoDB election or a Redis restart. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 8, backoffMs: 250, maxBackoffMs: 10_000, storeFaultMaxBackoffMs: 1000 };

/** What to do after delivery number `delivery` (1 = first) failed with `err`. */
export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

export function decideRetry(policy: RetryPolicy, delivery: number, err: unknown): RetryDecision {
  if (delivery >= policy.attempts) return { retry: false };
  const doubled = policy.backoffMs * 2 ** Math.max(0, delivery - 1);
  // A remote's own hint (Retry-After) wins when it asks for longer, still under the ceiling.
  const hinted = err instanceof TransientError && err.retryAfterMs !== undefined ? err.retryAfterMs : 0;
  return { retry: true, delayMs: Math.min(policy.maxBackoffMs, Math.max(doubled, hinted)) };
}

/**
 * The delay before delivering again a message whose handler hit a transient MongoDB fault (a
 * step-down, an election, the network) for the `storeFaults`-th time in a row: the same doubling
 * as {@link decideRetry}, up to `storeFaultMaxBackoffMs`, but never a dead letter. The message is
 * not at fault, and a replica set elects a new primary in seconds; while MongoDB stays away the
 * message waits in Redis and is tried again about once a second (each try also waits on the
 * driver's own server selection), instead of being given up.
 */
export function storeFaultDelayMs(policy: RetryPolicy, storeFaults: number): number {
  const exponent = Math.min(30, Math.max(0, storeFaults - 1));
  return Math.min(policy.storeFaultMaxBackoffMs, policy.maxBackoffMs, policy.backoffMs * 2 ** exponent);
}

/** A handler failure that is the infrastructure's, not the message's: which store, and why. */
export interface InfrastructureFault {
  of: 'mongo' | 'redis';
  reason: string;
}

/**
 * Whether a handler's failure was MongoDB or Redis being unable to take an operation *now*
 * (a step-down, an election, a failover, a lost connection: decisions 48 and 56). Such a delivery
 * is retried without being counted against the message. One place decides it, for the consumer
 * and for the simulation's consumer alike, so the two cannot drift apart.
 */
export function infrastructureFault(err: unknown): InfrastructureFault | undefined {
  const mongo = mongoTransientReason(err);
  if (mongo !== undefined) return { of: 'mongo', reason: mongo };
  const redis = redisTransientReason(err);
  return redis !== undefined ? { of: 'redis', reason: redis } : undefined;
}
