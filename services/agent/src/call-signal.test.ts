import { callSignal } from './call-signal';

describe('callSignal', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('aborts with the caller, with the caller\'s reason', () => {
    const caller = new AbortController();
    const call = callSignal(caller.signal, 1000);
    const reason = new Error('complete-by reached');
    caller.abort(reason);
    expect(call.signal.aborted).toBe(true);
    expect(call.signal.reason).toBe(reason);
  });

  it('aborts with a TimeoutError once the timeout passes, as AbortSignal.timeout did', () => {
    const call = callSignal(new AbortController().signal, 1000);
    jest.advanceTimersByTime(999);
    expect(call.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(call.signal.aborted).toBe(true);
    expect((call.signal.reason as Error).name).toBe('TimeoutError');
  });

  it('once done, neither the timer nor the caller aborts it, and no timer is left', () => {
    const caller = new AbortController();
    const call = callSignal(caller.signal, 1000);
    call.done();
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(5000);
    caller.abort(new Error('later'));
    expect(call.signal.aborted).toBe(false);
  });

  it('is the caller\'s own signal when there is no timeout, and one already aborted stays so', () => {
    const caller = new AbortController();
    expect(callSignal(caller.signal, 0).signal).toBe(caller.signal);
    caller.abort(new Error('gone'));
    expect(callSignal(caller.signal, 1000).signal.aborted).toBe(true);
  });
});
