import { SCHEMA_VERSION, type ProcessDocument, type SignalResult } from '@sas/contracts';
import { parseSignalData, signalProcess, type SignalCommandArgs, type SignalCommandIo, type SignalDelivery } from './signal-command';

// The command's flow over scripted I/O (kept in this file: test code stays out of the build).

const doc = (id: string, orderId: string): ProcessDocument => ({ _id: id, orderId }) as ProcessDocument;

class ScriptedIo implements SignalCommandIo {
  readonly where = 'database sas';
  readonly sent: { processId: string; name: string }[] = [];
  readonly audited: { outcome: string; exitCode: number; processId: string | undefined; detail: string }[] = [];
  processes: ProcessDocument[] = [doc('p-1', 'o-1001')];
  answer: (processId: string, args: SignalCommandArgs) => SignalDelivery = (processId, args) => ({ answered: true, result: answer(processId, args, true, 'consumed', 'approval completed with the signal') });

  readonly lookup = {
    get: async (id: string) => this.processes.find((p) => p._id === id) ?? null,
    getByOrderId: async (orderId: string) => this.processes.find((p) => p.orderId === orderId) ?? null,
  };

  async send(processId: string, args: SignalCommandArgs): Promise<SignalDelivery> {
    this.sent.push({ processId, name: args.name });
    return this.answer(processId, args);
  }

  async audit(outcome: 'ok' | 'refused' | 'failed', exitCode: number, d: ProcessDocument | undefined, detail: string): Promise<string | undefined> {
    this.audited.push({ outcome, exitCode, processId: d?._id, detail });
    return undefined;
  }
}

function answer(processId: string, args: SignalCommandArgs, ok: boolean, outcome: SignalResult['outcome'], message: string): SignalResult {
  return { schemaVersion: SCHEMA_VERSION, signalId: args.signalId ?? 'approval.abc', processId, orderId: null, name: args.name, ok, outcome, message };
}

const ARGS: SignalCommandArgs = { path: { kind: 'direct', principal: 'cli:ann@box' }, name: 'approval', data: { approved: true } };

async function run(io: ScriptedIo, target: string, args: Partial<SignalCommandArgs> = {}): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await signalProcess(io, target, { ...ARGS, ...args }, (l) => lines.push(l));
  return { code, lines };
}

describe('sas signal', () => {
  it('finds the process by orderId, sends the signal by process id, prints the answer and audits it (exit 0)', async () => {
    const io = new ScriptedIo();
    const { code, lines } = await run(io, 'o-1001');

    expect(code).toBe(0);
    expect(lines).toEqual(['matched orderId o-1001 → process p-1', 'consumed: approval completed with the signal (signal id approval.abc)']);
    expect(io.sent).toEqual([{ processId: 'p-1', name: 'approval' }]);
    expect(io.audited).toEqual([{ outcome: 'ok', exitCode: 0, processId: 'p-1', detail: 'signal approval (approval.abc): consumed' }]);
  });

  it('prints a refusal and exits 1 when the scheduler refuses (a finished process)', async () => {
    const io = new ScriptedIo();
    io.answer = (processId, args) => ({ answered: true, result: answer(processId, args, false, 'refused', 'process is Compensated; signal not used') });
    const { code, lines } = await run(io, 'p-1', { signalId: 'approval-7' });

    expect(code).toBe(1);
    expect(lines.at(-1)).toBe('refused: process is Compensated; signal not used (signal id approval-7)');
    expect(io.audited).toEqual([{ outcome: 'refused', exitCode: 1, processId: 'p-1', detail: 'signal approval (approval-7): refused' }]);
  });

  it('exits 1 saying so when no scheduler answers, audited as failed', async () => {
    const io = new ScriptedIo();
    io.answer = () => ({ answered: false, message: 'no scheduler answered within 5 ms' });
    const { code, lines } = await run(io, 'p-1');

    expect(code).toBe(1);
    expect(lines.at(-1)).toBe('no answer: no scheduler answered within 5 ms');
    expect(io.audited.map((a) => a.outcome)).toEqual(['failed']);
  });

  it('refuses an ambiguous id and sends nothing', async () => {
    const io = new ScriptedIo();
    io.processes = [doc('x-1', 'o-1'), doc('p-2', 'x-1')];
    const { code, lines } = await run(io, 'x-1');

    expect(code).toBe(1);
    expect(lines[0]).toMatch(/^refused: 'x-1' is ambiguous/);
    expect(io.sent).toEqual([]);
    expect(io.audited.map((a) => a.outcome)).toEqual(['refused']);
  });
});

describe('the --data option', () => {
  it('takes a JSON object or null, and refuses anything else saying what to pass', () => {
    expect(parseSignalData('{"approved":true}')).toEqual({ approved: true });
    expect(parseSignalData('null')).toBeNull();
    expect(() => parseSignalData('[1]')).toThrow(`--data must be a JSON object such as '{"approved":true}' (got [1])`);
    expect(() => parseSignalData('{')).toThrow(/^--data is not JSON/);
  });
});
