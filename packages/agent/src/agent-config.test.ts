import { loadConfig } from '@sas/runtime';
import { AgentConfig, breakerSettingsOf, retryDefaultsOf } from './agent-config';

describe('AgentConfig', () => {
  it('needs no variable and fills every one with its default', () => {
    const config = loadConfig(AgentConfig, {});

    expect(config).toMatchObject({
      CONCURRENCY: 16,
      BREAKER_ERROR_THRESHOLD_PERCENT: 50,
      BREAKER_VOLUME_THRESHOLD: 5,
      BREAKER_RESET_TIMEOUT_MS: 5000,
      BREAKER_ROLLING_WINDOW_MS: 10000,
      BREAKER_REPORT_INTERVAL_MS: 5000,
      REGISTRATION_INTERVAL_MS: 10000,
    });
    expect(retryDefaultsOf(config)).toEqual({
      maxAttempts: 5,
      initialBackoffMs: 100,
      maxBackoffMs: 2000,
      multiplier: 2,
      jitter: 0.5,
    });
    expect(breakerSettingsOf(config)).toEqual({
      errorThresholdPercentage: 50,
      volumeThreshold: 5,
      resetTimeoutMs: 5000,
      rollingWindowMs: 10000,
      minRetryAfterMs: 1000,
    });
  });

  it('reads numbers from their string form in the environment', () => {
    const config = loadConfig(AgentConfig, { CONCURRENCY: '4', RETRY_JITTER: '0' });

    expect(config.CONCURRENCY).toBe(4);
    expect(config.RETRY_JITTER).toBe(0);
  });

  it('rejects a maximum backoff below the initial one', () => {
    expect(() =>
      loadConfig(AgentConfig, {
        RETRY_INITIAL_BACKOFF_MS: '500',
        RETRY_MAX_BACKOFF_MS: '100',
      }),
    ).toThrow('RETRY_MAX_BACKOFF_MS (100) must be at least RETRY_INITIAL_BACKOFF_MS (500)');
  });
});
