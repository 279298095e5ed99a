import { noFaults, parseFaultSettings } from './fault-settings';

describe('parseFaultSettings', () => {
  it('fills every absent field with "no fault"', () => {
    expect(parseFaultSettings('payment', { errorRate: 0.25 }, 1000)).toEqual({
      ok: true,
      faults: { ...noFaults(), errorRate: 0.25 },
    });
  });

  it('turns outageMs into an absolute end of outage at the time it is set', () => {
    const parsed = parseFaultSettings('shipping', { outageMs: 3000 }, 10_000);
    expect(parsed.ok && parsed.faults.outageUntil).toBe(13_000);
  });

  it('keeps outageUntil as given', () => {
    const parsed = parseFaultSettings('shipping', { outageUntil: 99_000 }, 10_000);
    expect(parsed.ok && parsed.faults.outageUntil).toBe(99_000);
  });

  it.each([
    [{ errorRate: 1.5 }, 'errorRate: Number must be less than or equal to 1'],
    [{ lostReplyRate: -0.1 }, 'lostReplyRate: Number must be greater than or equal to 0'],
    [{ latencyMs: 'slow' }, 'latencyMs: Expected number, received string'],
    [{ hang: 'yes' }, 'hang: Expected boolean, received string'],
    [{ errorrate: 0.5 }, "Unrecognized key(s) in object: 'errorrate'"],
    [{ outageMs: 10, outageUntil: 20 }, 'give outageMs or outageUntil, not both'],
    [{ permanentFailOrders: 'o-1' }, 'permanentFailOrders: Expected array, received string'],
    [[], 'Expected object, received array'],
  ])('refuses %j, saying why', (body, issue) => {
    const parsed = parseFaultSettings('payment', body, 0);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues.join('\n')).toContain(issue);
  });

  it('refuses a permanently failing operation the service does not have', () => {
    expect(parseFaultSettings('payment', { permanentFailOperations: ['charge', 'reserve'] }, 0)).toEqual({
      ok: false,
      issues: ["permanentFailOperations: payment has no operation 'reserve'"],
    });
  });
});
