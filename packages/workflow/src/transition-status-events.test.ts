import type { StatusEvents } from '@sas/contracts';
import { createProcess } from './create-process';
import { orderFulfilmentV1 } from './order-fulfilment';
import { statusEvents } from './test-support/action-filters';
import { ProcessRun, T0 } from './test-support/process-run';
import { ok, refused } from './test-support/reply-body';

/** A run whose order asked for `choice` status events, as the submission service creates it. */
function runAsking(choice: StatusEvents | undefined): ProcessRun {
  const run = new ProcessRun();
  run.doc = createProcess({ processId: 'p-1', orderId: 'o-1', payload: { sku: 'sku-1' }, replyTo: 'app.status', statusEvents: choice, workflow: orderFulfilmentV1, now: T0 });
  return run;
}

/** The statuses a run's transitions send, in order, from the claim until the replies run out. */
function statusesOf(run: ProcessRun, replies: readonly Parameters<ProcessRun['reply']>[0][]): string[] {
  const sent = [...statusEvents(run.apply({ type: 'claim' }).actions)];
  for (const body of replies) {
    run.now += 100;
    sent.push(...statusEvents(run.reply(body).actions));
  }
  return sent.map((e) => e.status);
}

describe('when an order asks for final status events only', () => {
  it('sends Processed and neither Processing nor StepCompleted', () => {
    const run = runAsking('final');
    expect(statusesOf(run, [ok(), ok(), ok()])).toEqual(['Processed']);
    expect(run.doc.state).toBe('Processed');
  });

  it('still sends Failed and Compensated when a step is refused', () => {
    const run = runAsking('final');
    expect(statusesOf(run, [ok(), refused('card declined'), ok()])).toEqual(['Failed', 'Compensated']);
  });

  it('is stored on the process, so every scheduler honours it', () => {
    expect(runAsking('final').doc.statusEvents).toBe('final');
  });
});

describe('when an order asks for all status events, or names no choice', () => {
  it.each([['all' as const], [undefined]])('sends the progress events too (%s)', (choice) => {
    const run = runAsking(choice);
    expect(statusesOf(run, [ok(), ok(), ok()])).toEqual(['Processing', 'StepCompleted', 'StepCompleted', 'StepCompleted', 'Processed']);
  });

  it('leaves the field out of a process whose order named none, as before the choice existed', () => {
    expect('statusEvents' in runAsking(undefined).doc).toBe(false);
  });
});
