import { MAX_STEP_RESULT_BYTES, MAX_STEP_RESULT_DEPTH } from '@sas/contracts';
import { orderFulfilmentV1 } from './order-fulfilment';
import { alerts, statusEvents } from './test-support/action-filters';
import { secondStepInFlight, type ProcessRun } from './test-support/process-run';
import { ok, okResultRefused, type ReplyBody } from './test-support/reply-body';
import { oversizedResult, tooDeepResult } from './test-support/uncarried-results';
import type { WorkflowDefinition } from './workflow-definition';

// charge-payment (the second step) took effect, but its result cannot be carried to later steps.
const cases: Array<{ when: string; body: () => ReplyBody; problem: string }> = [
  {
    when: 'the agent says it refused the result',
    body: () => okResultRefused('the result is 20000 bytes as JSON'),
    problem: 'the result is 20000 bytes as JSON',
  },
  {
    when: 'an older agent sends a result over the size limit',
    body: () => ok(oversizedResult()),
    problem: `the result is ${MAX_STEP_RESULT_BYTES + 14} bytes as JSON, more than the ${MAX_STEP_RESULT_BYTES} a step result may carry`,
  },
  {
    when: 'an older agent sends a result nested past the depth limit',
    body: () => ok(tooDeepResult()),
    problem: `the result nests more than ${MAX_STEP_RESULT_DEPTH} levels of objects and arrays`,
  },
];

describe.each(cases)('when $when', ({ body, problem }) => {
  const what = `charge-payment returned a result that cannot be carried (${problem})`;

  function replied(workflow?: WorkflowDefinition): ProcessRun {
    const run = secondStepInFlight(workflow);
    run.now += 50;
    run.reply(body());
    return run;
  }

  it('keeps a null result for the step and stores the result nowhere in the process', () => {
    const run = replied();
    expect(run.doc.steps.map((s) => s.result)).toEqual([{ reservationId: 'r-1' }, null, null]);
    expect(JSON.stringify(run.doc).length).toBeLessThan(4096);
  });

  it('starts compensation with the undo of that step itself, telling it the outcome is unknown', () => {
    const run = replied();
    expect(run.doc).toMatchObject({ state: 'Compensating', mode: 'compensate', currentStep: 1, failureCount: 0, reason: what });
    expect(run.request()).toMatchObject({
      step: 'charge-payment',
      mode: 'compensate',
      operation: 'refund',
      idempotencyKey: 'p-1/charge-payment/compensate',
      compensates: { idempotencyKey: 'p-1/charge-payment', result: null },
      results: { 'reserve-inventory': { reservationId: 'r-1' } },
    });
  });

  it('says why in the history, alerts an operator and tells the application the order failed', () => {
    const run = secondStepInFlight();
    run.now += 50;
    const { history, actions } = run.reply(body());
    expect(history.why).toBe(`ok from payment-1 for charge-payment#2: ${what}; undoing the order; compensating charge-payment`);
    expect(alerts(actions)).toEqual([
      {
        schemaVersion: 1,
        kind: 'StepResultRefused',
        processId: 'p-1',
        orderId: 'o-1',
        step: 'charge-payment',
        failureCount: 0,
        reason: `${what}; its effect happened, so the order is being undone`,
        at: run.now,
      },
    ]);
    expect(statusEvents(actions)).toEqual([expect.objectContaining({ status: 'Failed', step: 'charge-payment', reason: what })]);
  });

  it('undoes every earlier step too and ends Compensated with the reason', () => {
    const run = replied();
    run.reply(ok());
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', mode: 'compensate', compensates: { result: { reservationId: 'r-1' } } });
    const { next, actions } = run.reply(ok());
    expect(next.state).toBe('Compensated');
    expect(next.steps.map((s) => s.state)).toEqual(['Compensated', 'Compensated', 'NotStarted']);
    expect(statusEvents(actions)).toEqual([expect.objectContaining({ status: 'Compensated', reason: what })]);
  });

  it('compensates even in a workflow that stops in Error on a permanent refusal', () => {
    const run = replied({ ...orderFulfilmentV1, name: 'strict', onPermanentFailure: 'error' });
    expect(run.doc).toMatchObject({ state: 'Compensating', currentStep: 1 });
  });
});

describe('when a result is exactly at the size limit', () => {
  it('is carried to the next step', () => {
    const result = { r: 'x'.repeat(MAX_STEP_RESULT_BYTES - '{"r":""}'.length) };
    expect(Buffer.byteLength(JSON.stringify(result))).toBe(MAX_STEP_RESULT_BYTES);
    const run = secondStepInFlight();
    run.reply(ok(result));
    expect(run.request()).toMatchObject({ step: 'create-shipment', results: { 'charge-payment': result } });
  });
});

describe('when a step whose result cannot be carried has nothing to undo', () => {
  it('skips it and undoes the steps before it', () => {
    const steps = orderFulfilmentV1.steps.map((s, i) => (i === 1 ? { ...s, compensation: null } : s));
    const run = secondStepInFlight({ ...orderFulfilmentV1, name: 'partly-undoable', steps });
    run.reply(okResultRefused('too large'));
    // Completed, not Failed: its effect happened, only its result is lost.
    expect(run.doc.steps[1]).toMatchObject({ state: 'Completed', result: null, error: null });
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', mode: 'compensate' });
  });
});

describe('when an undo answers with a result that could not be carried', () => {
  it('ignores it: an undo result is never stored, so the compensation goes on', () => {
    const run = secondStepInFlight();
    run.reply(okResultRefused('too large'));
    const { next } = run.reply(ok(oversizedResult()));
    expect(next.steps[1]?.state).toBe('Compensated');
    expect(next.steps[1]?.result).toBeNull();
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', mode: 'compensate' });
  });
});
