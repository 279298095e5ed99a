import { ProcessRun, secondStepInFlight } from './test-support/process-run';
import { ok, refused } from './test-support/reply-body';

describe('when a step returns a result', () => {
  it('sends the first step an empty results object', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    expect(run.request().results).toEqual({});
  });

  it('passes it, keyed by step name, to every later forward step', () => {
    const run = secondStepInFlight();
    expect(run.request()).toMatchObject({ step: 'charge-payment', results: { 'reserve-inventory': { reservationId: 'r-1' } } });
    run.reply(ok({ chargeId: 'c-1' }));
    expect(run.request()).toMatchObject({ step: 'create-shipment', payload: { sku: 'sku-1' } });
    expect(run.request().results).toEqual({
      'reserve-inventory': { reservationId: 'r-1' },
      'charge-payment': { chargeId: 'c-1' },
    });
  });
});

describe('when a step is undone', () => {
  function undoing() {
    const run = secondStepInFlight();
    run.reply(ok({ chargeId: 'c-1' }));
    run.reply(refused('address invalid'));
    return run;
  }

  it('passes the undo the results of the steps before the one it undoes, its own in compensates', () => {
    const run = undoing();
    expect(run.request()).toMatchObject({
      step: 'charge-payment',
      mode: 'compensate',
      compensates: { idempotencyKey: 'p-1/charge-payment', result: { chargeId: 'c-1' } },
      payload: { sku: 'sku-1', compensating: { chargeId: 'c-1' } },
    });
    expect(run.request().results).toEqual({ 'reserve-inventory': { reservationId: 'r-1' } });
  });

  it('passes the undo of the first step an empty results object', () => {
    const run = undoing();
    run.reply(ok());
    expect(run.request()).toMatchObject({ step: 'reserve-inventory', mode: 'compensate', compensates: { result: { reservationId: 'r-1' } } });
    expect(run.request().results).toEqual({});
  });
});
