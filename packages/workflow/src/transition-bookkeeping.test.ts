import { orderFulfilmentV1 } from './order-fulfilment';
import type { ProcessInput } from './process-input';
import { ProcessRun } from './test-support/process-run';
import { answer, ok, type ReplyBody } from './test-support/reply-body';

describe('every applied transition', () => {
  /** Inputs touching every kind of transition: claim, each reply outcome, expire, cancel, resubmit. */
  function script(run: ProcessRun): Array<() => ProcessInput> {
    const reply = (body: ReplyBody) => (): ProcessInput => ({
      type: 'reply',
      reply: answer(run.request(), body, run.now),
    });
    const expire = (): ProcessInput => {
      run.now = run.doc.completeBy?.getTime() ?? run.now;
      return { type: 'expire' };
    };
    return [
      () => ({ type: 'claim' }),
      reply(ok({ reservationId: 'r-1' })),
      expire,
      () => ({ type: 'claim' }),
      reply({ outcome: 'error', errorKind: 'transient', message: 'gateway timeout' }),
      () => ({ type: 'claim' }),
      reply({ outcome: 'parked', retryAfterMs: 1000, reason: 'circuit open' }),
      () => ({ type: 'cancel', by: 'op', reason: 'customer asked' }),
      // The undo waits for the parked attempt's complete-by: its agent may still call until then.
      () => {
        run.now = Math.max(run.now, run.doc.notBefore.getTime());
        return { type: 'claim' };
      },
      reply({ outcome: 'error', errorKind: 'permanent', message: 'refund refused' }),
      () => ({ type: 'resubmit', by: 'op' }),
      () => ({ type: 'claim' }),
      reply(ok()),
      reply(ok()),
    ];
  }

  it('adds one to revision, stamps updatedAt and records from, to, why and attempt', () => {
    const run = new ProcessRun();
    for (const next of script(run)) {
      run.now += 10;
      const before = run.doc;
      const result = run.apply(next());
      expect(result.next.revision).toBe(before.revision + 1);
      expect(result.next.updatedAt).toEqual(new Date(run.now));
      expect(result.history).toMatchObject({
        processId: 'p-1',
        orderId: 'o-1',
        at: new Date(run.now),
        from: before.state,
        to: result.next.state,
        attempt: result.next.attempt,
        step: result.next.steps[result.next.currentStep]?.name,
        who: 'scheduler-1',
        // Kept while the process is unfinished; a retention past the process once it is finished.
        deleteTime: result.next.deleteTime ? new Date(run.now + 2 * orderFulfilmentV1.retentionMs) : null,
      });
      expect(result.history.why.length).toBeGreaterThan(0);
    }
    expect(run.doc.state).toBe('Canceled');
  });

  it('never changes the document it was given, even a frozen one', () => {
    const run = new ProcessRun();
    for (const next of script(run)) {
      run.now += 10;
      const input = next();
      const given = deepFreeze(run.doc);
      const snapshot = structuredClone(given);
      // Freezing does not protect a Date's internal time, so compare the instants as well.
      const instants = [given.notBefore, given.updatedAt, given.completeBy].map((d) => d?.getTime());
      const result = run.apply(input);
      expect(result.next).not.toBe(given);
      expect(given).toEqual(snapshot);
      expect([given.notBefore, given.updatedAt, given.completeBy].map((d) => d?.getTime())).toEqual(instants);
    }
  });
});

/** Freezes a value and everything it holds, so a transition that writes to its input throws. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
