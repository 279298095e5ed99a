import type { SignalResult } from '@sas/contracts';
import type { RequestReplyOutcome } from './request-reply';
import { signalWhenFound } from './signal-when-found';

const reply = (outcome: SignalResult['outcome']): RequestReplyOutcome<SignalResult> => ({
  answered: true,
  reply: { schemaVersion: 1, signalId: 'approved.1', processId: outcome === 'not-found' ? null : 'p-1', orderId: 'o-1', name: 'approved', ok: outcome !== 'not-found', outcome, message: outcome === 'not-found' ? "no process has the orderId 'o-1'" : 'kept' },
});

/** A clock that moves only when the waiter sleeps, and a record of the pauses and of the time left given to each send. */
function fakeTime(): { now: () => number; sleep: (ms: number) => Promise<void>; pauses: number[] } {
  let at = 0;
  const pauses: number[] = [];
  return { now: () => at, sleep: async (ms) => void (pauses.push(ms), (at += ms)), pauses };
}

describe('a signal whose order is not stored yet', () => {
  it('is sent again, with a growing pause, until the order is found', async () => {
    const time = fakeTime();
    const answers = [reply('not-found'), reply('not-found'), reply('not-found'), reply('kept')];
    const left: number[] = [];
    const outcome = await signalWhenFound('o-1', 10_000, async (ms) => (left.push(ms), answers.shift()!), time);
    expect(outcome).toEqual(reply('kept'));
    expect(time.pauses).toEqual([50, 100, 200]);
    // Each send is given what is left of the one deadline, not a fresh timeout.
    expect(left).toEqual([10_000, 9_950, 9_850, 9_650]);
  });

  it('answers not-found at the deadline, saying it waited for the order', async () => {
    const time = fakeTime();
    const outcome = await signalWhenFound('o-1', 3_000, async () => reply('not-found'), time);
    expect(outcome).toMatchObject({ answered: true, reply: { outcome: 'not-found', ok: false } });
    expect(outcome.answered && outcome.reply.message).toBe(
      "no process has the orderId 'o-1'; no order 'o-1' was stored within the signal's timeout of 3000 ms (sent 7 time(s)): it was never submitted, or its submission is not yet consumed",
    );
    expect(time.pauses).toEqual([50, 100, 200, 400, 800, 1000]);
  });

  it('is not sent again after any other answer, or after no answer', async () => {
    const time = fakeTime();
    const refused = reply('refused');
    expect(await signalWhenFound('o-1', 3_000, async () => refused, time)).toBe(refused);
    const none: RequestReplyOutcome<SignalResult> = { answered: false, replyTo: 'signal.replies.x' };
    expect(await signalWhenFound('o-1', 3_000, async () => none, time)).toBe(none);
    expect(time.pauses).toEqual([]);
  });
});
