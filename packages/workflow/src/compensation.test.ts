import type { StepRecord, StepState } from '@sas/contracts';
import { compensationTarget, needsCompensation } from './compensation';

function step(state: StepState, compensation: string | null = 'undo'): StepRecord {
  return {
    name: `s-${state}`,
    agent: 'a',
    operation: 'do',
    compensation,
    state,
    dispatches: 1,
    idempotencyKey: 'p/s',
    startedAt: null,
    finishedAt: null,
    result: null,
    error: null,
  };
}

describe('needsCompensation', () => {
  it('undoes completed, in-doubt and half-undone steps that have a compensation', () => {
    const needed = (
      ['NotStarted', 'Running', 'Completed', 'Failed', 'Compensating', 'Compensated', 'Skipped'] as const
    ).filter((s) => needsCompensation(step(s)));
    expect(needed).toEqual(['Running', 'Completed', 'Compensating']);
  });

  it('never undoes a step that has no compensation', () => {
    expect(needsCompensation(step('Completed', null))).toBe(false);
  });
});

describe('compensationTarget', () => {
  const steps = [step('Completed'), step('Completed', null), step('Failed'), step('NotStarted')];

  it('picks the highest step at or below the start that needs undoing', () => {
    expect(compensationTarget(steps, 3)).toBe(0);
    expect(compensationTarget([step('Completed'), step('Running')], 1)).toBe(1);
    expect(compensationTarget([step('Completed'), step('Running')], 0)).toBe(0);
  });

  it('clamps a start past the last step, and answers -1 when nothing is left to undo', () => {
    expect(compensationTarget(steps.slice(1), 10)).toBe(-1);
    expect(compensationTarget(steps, -1)).toBe(-1);
    expect(compensationTarget([step('Running')], 5)).toBe(0);
  });
});
