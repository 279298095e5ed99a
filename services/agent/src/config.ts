import { z } from 'zod';
import type { RetryPolicy } from '@sas/contracts';
import { CommonConfig } from '@sas/runtime';
import type { CircuitBreakerSettings } from './circuit-breakers';

/**
 * The agent's environment. One process serves one remote service (`AGENT`); scale it with replicas.
 * Parse it with `loadConfig(AgentConfig, process.env)` in `main.ts` only.
 */
export const AgentConfig = z
  .object({
    ...CommonConfig,
    /** The remote service this agent wraps; it consumes `agent.<AGENT>.requests`. Required. */
    AGENT: z
      .string({
        required_error: 'AGENT is required: set it to the remote service this agent serves, e.g. payment',
      })
      .regex(/^[a-z][a-z0-9-]*$/, 'AGENT must be lower-case letters, digits and -, starting with a letter'),
    /** Base URL of the remote services (the remote simulator locally). */
    REMOTE_URL: z
      .string()
      .url('REMOTE_URL must be a URL such as http://127.0.0.1:4100')
      .default('http://127.0.0.1:4100'),
    /** Longest single HTTP call before it counts as a transient fault and is retried; 0 = until complete-by. */
    REMOTE_CALL_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(10_000),
    /** Requests handled at once by this process (BullMQ worker concurrency). */
    CONCURRENCY: z.coerce.number().int().positive().max(1000).default(16),
    /** Calls in total per request when the request carries no retry policy. */
    RETRY_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
    /** First backoff delay when the request carries no retry policy. */
    RETRY_INITIAL_BACKOFF_MS: z.coerce.number().int().nonnegative().default(100),
    /** Longest backoff delay when the request carries no retry policy. */
    RETRY_MAX_BACKOFF_MS: z.coerce.number().int().nonnegative().default(2000),
    /** Growth of the backoff delay per retry when the request carries no retry policy. */
    RETRY_MULTIPLIER: z.coerce.number().min(1).default(2),
    /** Share of each delay spread at random (0 none, 1 full) when the request carries no retry policy. */
    RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.5),
    /** The breaker opens when more than this percentage of calls in the window failed transiently. */
    BREAKER_ERROR_THRESHOLD_PERCENT: z.coerce.number().min(0).max(100).default(50),
    /** Calls the window must hold before the breaker may open. */
    BREAKER_VOLUME_THRESHOLD: z.coerce.number().int().nonnegative().default(5),
    /** How long an open breaker parks requests before one trial call. */
    BREAKER_RESET_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
    /** Length of the breaker's rolling window of call statistics (10 buckets). */
    BREAKER_ROLLING_WINDOW_MS: z.coerce.number().int().min(100).default(10_000),
    /** Smallest retryAfterMs a parked reply carries, so parked steps are not re-sent at once. */
    BREAKER_MIN_RETRY_AFTER_MS: z.coerce.number().int().nonnegative().default(1000),
    /** Heartbeat of the breaker state written to the store; documents expire after 3 missed beats. */
    BREAKER_REPORT_INTERVAL_MS: z.coerce.number().int().positive().default(5000),
  })
  .superRefine((c, ctx) => {
    if (c.RETRY_MAX_BACKOFF_MS < c.RETRY_INITIAL_BACKOFF_MS) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['RETRY_MAX_BACKOFF_MS'],
        message: `RETRY_MAX_BACKOFF_MS (${c.RETRY_MAX_BACKOFF_MS}) must be at least RETRY_INITIAL_BACKOFF_MS (${c.RETRY_INITIAL_BACKOFF_MS})`,
      });
    }
  });
export type AgentConfig = z.infer<typeof AgentConfig>;

/** The retry policy used for requests that carry none. */
export function retryDefaultsOf(config: AgentConfig): RetryPolicy {
  return {
    maxAttempts: config.RETRY_MAX_ATTEMPTS,
    initialBackoffMs: config.RETRY_INITIAL_BACKOFF_MS,
    maxBackoffMs: config.RETRY_MAX_BACKOFF_MS,
    multiplier: config.RETRY_MULTIPLIER,
    jitter: config.RETRY_JITTER,
  };
}

/** The circuit breaker settings from the environment. */
export function breakerSettingsOf(config: AgentConfig): CircuitBreakerSettings {
  return {
    errorThresholdPercentage: config.BREAKER_ERROR_THRESHOLD_PERCENT,
    volumeThreshold: config.BREAKER_VOLUME_THRESHOLD,
    resetTimeoutMs: config.BREAKER_RESET_TIMEOUT_MS,
    rollingWindowMs: config.BREAKER_ROLLING_WINDOW_MS,
    minRetryAfterMs: config.BREAKER_MIN_RETRY_AFTER_MS,
  };
}
