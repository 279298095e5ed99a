import { describeIssues } from './describe-issues';
import { MAX_STEP_RESULT_BYTES } from './step-result-limits';
import { ProcessSignal, defaultSignalId } from './process-signal';

describe('ProcessSignal', () => {
  it('accepts a signal by orderId and fills in data and by', () => {
    const parsed = ProcessSignal.parse({ schemaVersion: 1, orderId: 'order-1', name: 'approval' });
    expect(parsed).toEqual({ schemaVersion: 1, orderId: 'order-1', name: 'approval', data: null, by: 'application' });
  });

  it('refuses a signal naming the process both ways, or neither', () => {
    for (const target of [{ processId: 'p-1', orderId: 'order-1' }, {}]) {
      const parsed = ProcessSignal.safeParse({ schemaVersion: 1, name: 'approval', ...target });
      expect(parsed.success).toBe(false);
      if (!parsed.success) expect(describeIssues(parsed.error).join('; ')).toContain('exactly one of processId and orderId');
    }
  });

  it('refuses data larger than a step result may be, saying what to send instead', () => {
    const parsed = ProcessSignal.safeParse({ schemaVersion: 1, processId: 'p-1', name: 'approval', data: { blob: 'x'.repeat(MAX_STEP_RESULT_BYTES) } });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(describeIssues(parsed.error).join('; ')).toMatch(/the data is \d+ bytes as JSON.*send a reference/);
  });

  it('refuses a name a signal step could not name, saying what a name is', () => {
    const parsed = ProcessSignal.safeParse({ schemaVersion: 1, processId: 'p-1', name: 'Approved' });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(describeIssues(parsed.error).join('; ')).toContain('name must be lower-case words joined by -');
  });
});

describe('defaultSignalId', () => {
  it('is the same for the same target, name and data written in another key order', () => {
    const a = defaultSignalId({ orderId: 'order-1' }, 'approval', { ok: true, by: 'ann' });
    const b = defaultSignalId({ orderId: 'order-1' }, 'approval', { by: 'ann', ok: true });
    expect(a).toBe(b);
    expect(a).toMatch(/^approval\.[0-9a-f]{24}$/);
  });

  it('differs for other data, another name or another process', () => {
    const base = defaultSignalId({ orderId: 'order-1' }, 'approval', { ok: true });
    expect(defaultSignalId({ orderId: 'order-1' }, 'approval', { ok: false })).not.toBe(base);
    expect(defaultSignalId({ orderId: 'order-1' }, 'approved', { ok: true })).not.toBe(base);
    expect(defaultSignalId({ orderId: 'order-2' }, 'approval', { ok: true })).not.toBe(base);
    expect(defaultSignalId({ processId: 'order-1' }, 'approval', { ok: true })).not.toBe(base);
  });
});
