import type { AgentRequest } from '@sas/contracts';
import type { ProcessInput } from './process-input';
import { expectIgnored } from './test-support/expect-ignored';
import { ProcessRun, T0, secondStepInFlight } from './test-support/process-run';
import { answer, ok, refused, type ReplyBody } from './test-support/reply-body';

/** A process whose second step (charge-payment, attempt 2) is in flight, and that step's request. */
function secondStepHeld(): { run: ProcessRun; held: AgentRequest } {
  const run = secondStepInFlight();
  return { run, held: run.request() };
}

const reply = (request: AgentRequest, body: ReplyBody = ok()): ProcessInput => ({
  type: 'reply',
  reply: answer(request, body, T0),
});

describe('when a reply arrives for an older attempt', () => {
  it('changes nothing and says which attempt is current', () => {
    const { run, held } = secondStepHeld();
    run.expire();
    run.apply({ type: 'claim' });
    expect(run.doc.attempt).toBe(4);
    for (const body of [ok(), refused('no')]) {
      expectIgnored(run, reply(held, body), 'stale reply from payment-1: attempt 2 is not current (4)');
    }
  });

  it('ignores the same reply delivered twice', () => {
    const { run } = secondStepHeld();
    const first = reply(run.request());
    run.apply(first);
    expectIgnored(run, first, 'stale reply from payment-1: attempt 2 is not current (3)');
  });
});

describe('when a reply names a step that is not the one held', () => {
  it.each<[string, Partial<AgentRequest>, string]>([
    [
      'a wrong step index',
      { stepIndex: 0 },
      'stale reply from payment-1: step charge-payment#0 is not current (#1)',
    ],
    [
      'a wrong step name at the right index',
      { step: 'reserve-inventory' },
      'stale reply from payment-1: step reserve-inventory#1 is not current (#1)',
    ],
  ])('changes nothing for %s', (_case, wrong, reason) => {
    const { run, held } = secondStepHeld();
    expectIgnored(run, reply({ ...held, ...wrong }), reason);
  });
});

describe('when a reply is for the other direction', () => {
  it('ignores a compensation reply while the process runs forward', () => {
    const { run, held } = secondStepHeld();
    expectIgnored(
      run,
      reply({ ...held, mode: 'compensate' }),
      'stale reply from payment-1: process is Processing, not Compensating',
    );
  });

  it('ignores a forward reply while the process compensates', () => {
    const { run } = secondStepHeld();
    run.reply({ outcome: 'error', errorKind: 'permanent', message: 'card declined' });
    expect(run.doc.state).toBe('Compensating');
    const undo = run.request();
    expectIgnored(
      run,
      reply({ ...undo, mode: 'forward', attempt: run.doc.attempt }),
      'stale reply from inventory-1: process is Compensating, not Processing',
    );
  });
});

describe('when a reply arrives after the process ended', () => {
  it('changes nothing, even one carrying the last attempt', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok());
    const last = run.request();
    run.reply(ok());
    expect(run.doc.state).toBe('Processed');
    expectIgnored(run, reply(last), 'stale reply from shipping-1: process is Processed, not Processing');
  });
});

describe('when a second scheduler claims a held process', () => {
  it('refuses the claim', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    expectIgnored(run, { type: 'claim' }, 'not claimable: state is Processing');
  });
});

describe('when a scheduler claims before notBefore', () => {
  it('refuses the claim and says when it may claim', () => {
    const { run } = secondStepHeld();
    run.reply({ outcome: 'parked', retryAfterMs: 30_000, reason: 'circuit open' });
    run.now += 29_999;
    expectIgnored(run, { type: 'claim' }, `not claimable before ${new Date(T0 + 30_000).toISOString()}`);
    run.now += 1;
    expect(run.try({ type: 'claim' }).applied).toBe(true);
  });
});

describe('when the supervisor looks too early or at the wrong process', () => {
  it('does not expire a step before its complete-by time', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.now = T0 + 4_999;
    expectIgnored(run, { type: 'expire' }, 'not expired: state Processing');
    run.now = T0 + 5_000;
    expect(run.try({ type: 'expire' }).applied).toBe(true);
  });

  it('does not expire a Pending process', () => {
    const run = new ProcessRun();
    run.now = T0 + 60_000;
    expectIgnored(run, { type: 'expire' }, 'not expired: state Pending');
  });

  it('does not expire a finished process', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    run.reply(ok());
    run.reply(ok());
    run.reply(ok());
    run.now += 3_600_000;
    expectIgnored(run, { type: 'expire' }, 'not expired: state Processed');
  });
});

describe('when anything at all reaches a terminal process', () => {
  it('changes nothing', () => {
    const run = new ProcessRun();
    run.apply({ type: 'claim' });
    const requests = [run.request()];
    run.reply(ok());
    requests.push(run.request());
    run.reply(ok());
    requests.push(run.request());
    run.reply(ok());
    run.now += 1_000_000;
    const inputs: ProcessInput[] = [
      { type: 'claim' },
      { type: 'expire' },
      { type: 'resubmit', by: 'op' },
      { type: 'cancel', by: 'op' },
      ...requests.flatMap((r) => [
        reply(r),
        reply(r, { outcome: 'error', errorKind: 'transient', message: 'x' }),
      ]),
    ];
    for (const input of inputs) expect(run.try(input).applied).toBe(false);
  });
});
