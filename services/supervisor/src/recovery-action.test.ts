import { recoveryAction } from './recovery-action';

describe('what a recovery did, read from the process after it', () => {
  it('is a retry while failures stay counted below the threshold', () => {
    expect(recoveryAction({ state: 'Pending', mode: 'forward', failureCount: 1 }, 'forward')).toBe('retry');
    expect(recoveryAction({ state: 'Pending', mode: 'compensate', failureCount: 2 }, 'compensate')).toBe('retry');
  });

  it('is the threshold policy when the count was reset: wait, compensate, or error', () => {
    expect(recoveryAction({ state: 'Pending', mode: 'forward', failureCount: 0 }, 'forward')).toBe('wait');
    expect(recoveryAction({ state: 'Pending', mode: 'compensate', failureCount: 0 }, 'forward')).toBe('compensate');
    expect(recoveryAction({ state: 'Error', mode: 'forward', failureCount: 3 }, 'forward')).toBe('error');
    expect(recoveryAction({ state: 'Error', mode: 'compensate', failureCount: 3 }, 'compensate')).toBe('error');
  });
});
