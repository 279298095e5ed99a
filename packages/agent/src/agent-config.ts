import { z } from 'zod';
import type { RetryPolicy } from '@sas/contracts';
import { CommonConfig } from '@sas/runtime';
import type { CircuitBreakerSettings } from './circuit-breakers';

/**
 * The environment every agent process reads, whatever its agents call. Spread it into a service's
 * own schema when the service reads more (`z.object({ ...AgentConfigFields, MY_VAR: ... })`) and
 * refine with {@link checkRetryBounds}.
 */
export const AgentConfigFields = {
  ...CommonConfig,
  /** Requests handled at once by this process, per agent (BullMQ worker concurrency). */
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
  /** Heartbeat of the agent's registration (what it serves); it counts as gone after 3 missed beats. */
  REGISTRATION_INTERVAL_MS: z.coerce.number().int().positive().default(10_000),
  /** The version this agent process reports in its registration (its own release); none when unset. */
  AGENT_VERSION: z.string().min(1).optional(),
};

/** The cross-field rule of {@link AgentConfigFields}: the backoff cannot shrink below its start. */
export function checkRetryBounds(
  c: { RETRY_INITIAL_BACKOFF_MS: number; RETRY_MAX_BACKOFF_MS: number },
  ctx: z.RefinementCtx,
): void {
  if (c.RETRY_MAX_BACKOFF_MS < c.RETRY_INITIAL_BACKOFF_MS) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      path: ['RETRY_MAX_BACKOFF_MS'],
      message: `RETRY_MAX_BACKOFF_MS (${c.RETRY_MAX_BACKOFF_MS}) must be at least RETRY_INITIAL_BACKOFF_MS (${c.RETRY_INITIAL_BACKOFF_MS})`,
    });
  }
}

/**
 * An agent process's environment: which Redis, MongoDB (breaker reports) and queue prefix, how
 * many requests at once, the retry policy for requests that carry none, and the circuit breaker.
 * Parse it with `loadConfig(AgentConfig, env)` at start, never at import time.
 */
export const AgentConfig = z.object(AgentConfigFields).superRefine(checkRetryBounds);
export type AgentConfig = z.infer<typeof AgentConfig>;

/** The part of the config {@link retryDefaultsOf} and {@link breakerSettingsOf} read. */
type AgentSettings = Pick<AgentConfig, Exclude<keyof typeof AgentConfigFields, keyof typeof CommonConfig>>;

/** The retry policy used for requests that carry none. */
export function retryDefaultsOf(config: AgentSettings): RetryPolicy {
  return {
    maxAttempts: config.RETRY_MAX_ATTEMPTS,
    initialBackoffMs: config.RETRY_INITIAL_BACKOFF_MS,
    maxBackoffMs: config.RETRY_MAX_BACKOFF_MS,
    multiplier: config.RETRY_MULTIPLIER,
    jitter: config.RETRY_JITTER,
  };
}

/** The circuit breaker settings from the environment. */
export function breakerSettingsOf(config: AgentSettings): CircuitBreakerSettings {
  return {
    errorThresholdPercentage: config.BREAKER_ERROR_THRESHOLD_PERCENT,
    volumeThreshold: config.BREAKER_VOLUME_THRESHOLD,
    resetTimeoutMs: config.BREAKER_RESET_TIMEOUT_MS,
    rollingWindowMs: config.BREAKER_ROLLING_WINDOW_MS,
    minRetryAfterMs: config.BREAKER_MIN_RETRY_AFTER_MS,
  };
}
