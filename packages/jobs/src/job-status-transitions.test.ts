import { JobExecutionState } from '@sas/contracts';
import { canTransition, isFinished, statusesAfterFiring } from './job-status-transitions';

describe('job status transitions', () => {
  it('lets only a SCHEDULED job change, to any status', () => {
    for (const to of JobExecutionState.options) expect(canTransition('SCHEDULED', to)).toBe(true);
    for (const from of ['TRIGGERED', 'CANCELED', 'FAILED'] as const) {
      for (const to of JobExecutionState.options) expect(canTransition(from, to)).toBe(false);
    }
  });

  it('treats TRIGGERED, CANCELED and FAILED as finished', () => {
    expect(JobExecutionState.options.filter(isFinished)).toEqual(['TRIGGERED', 'CANCELED', 'FAILED']);
  });

  it.each([
    [true, true, ['SCHEDULED'], 'SCHEDULED'],
    [false, true, ['FAILED', 'SCHEDULED'], 'SCHEDULED'],
    [true, false, ['TRIGGERED'], 'TRIGGERED'],
    [false, false, ['FAILED'], 'FAILED'],
  ])('after a firing (sent %s, next fire time %s) records %j and leaves the job %s', (sent, hasNext, entries, status) => {
    expect(statusesAfterFiring(sent, hasNext)).toEqual({ entries, status });
  });
});
