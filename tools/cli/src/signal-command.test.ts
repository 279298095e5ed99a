import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SCHEMA_VERSION, type ProcessDocument, type SignalResult } from '@sas/contracts';
import type { CliEnv } from './cli-env';
import { parseSignalData, runSignalCommand, signalProcess, type SignalCommandArgs, type SignalCommandIo, type SignalDelivery } from './signal-command';

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

  it.each([
    ['not-found', 'no process p-1 (wrong id, or removed after its retention); signal not used'],
    ['invalid', 'invalid message on process.signals: data: too large; the signal was not applied and is kept in the dead-letter queue; fix it and send it again'],
  ] as const)('exits 1 naming the outcome when the scheduler answers %s', async (outcome, message) => {
    const io = new ScriptedIo();
    io.answer = (processId, args) => ({ answered: true, result: answer(processId, args, false, outcome, message) });
    const { code, lines } = await run(io, 'p-1', { signalId: 'approval-7' });

    expect(code).toBe(1);
    expect(lines.at(-1)).toBe(`refused (${outcome}): ${message} (signal id approval-7)`);
    expect(io.audited).toEqual([{ outcome: 'refused', exitCode: 1, processId: 'p-1', detail: `signal approval (approval-7): ${outcome}` }]);
  });

  it('exits 1 when no process has the id, sending nothing', async () => {
    const io = new ScriptedIo();
    const { code, lines } = await run(io, 'o-404');

    expect(code).toBe(1);
    expect(lines.at(-1)).toMatch(/^refused: .*o-404/);
    expect(io.sent).toEqual([]);
  });

  it('shows escape sequences, bidi overrides and newlines in a stored id or message as visible escapes', async () => {
    const io = new ScriptedIo();
    io.processes = [doc('p-1', 'o-\u202e1001\x1b[2J')];
    io.answer = (processId, args) => ({ answered: true, result: answer(processId, args, true, 'kept', 'kept\n  operator:admin: approved by the owner\x07') });
    const { lines } = await run(io, 'p-1');

    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(lines[0]).toBe('matched process id p-1 (order o-\\u202e1001\\x1b[2J)');
    expect(lines.at(-1)).toBe('kept: kept\\n  operator:admin: approved by the owner\\x07 (signal id approval.abc)');
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

describe('sas signal through the dashboard API', () => {
  let server: Server;
  let baseUrl: string;
  const received: { method: string; url: string; auth: string | undefined; body: unknown }[] = [];
  /** What the fake dashboard answers to the POST (the lookups always find p-1 for o-1001). */
  let post: { status: number; body: unknown } = { status: 200, body: {} };

  const readBody = (req: IncomingMessage): Promise<unknown> =>
    new Promise((resolve) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => resolve(text ? (JSON.parse(text) as unknown) : undefined));
    });

  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then((body) => {
        received.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
        const reply = (status: number, json: unknown): void => {
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
        };
        if (req.method === 'GET' && req.url === '/api/processes/o-1001') return reply(200, { _id: 'p-1', orderId: 'o-1001' });
        if (req.method === 'GET' && req.url?.startsWith('/api/processes?orderId=o-1001')) return reply(200, { processes: [{ _id: 'p-1', orderId: 'o-1001' }] });
        if (req.method === 'GET') return reply(200, { processes: [] });
        reply(post.status, post.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    received.length = 0;
  });

  const env: CliEnv = { redisUrl: 'redis://unused', mongoUrl: 'mongodb://unused', mongoDb: 'unused', prefix: 'sas' };
  const api = (): SignalCommandArgs => ({ path: { kind: 'api', baseUrl, token: 'op-token' }, name: 'approval', data: { approved: true }, signalId: 'sig-1' });

  it('posts the signal to the process found by orderId, with the token, and prints the answer', async () => {
    post = { status: 200, body: answer('p-1', api(), true, 'kept', 'signal approval (sig-1) from operator:x kept until step approval is reached') };
    const lines: string[] = [];
    const code = await runSignalCommand(env, 'o-1001', api(), (l) => lines.push(l));

    expect(code).toBe(0);
    expect(lines).toEqual(['matched orderId o-1001 → process p-1', 'kept: signal approval (sig-1) from operator:x kept until step approval is reached (signal id sig-1)']);
    expect(received.at(-1)).toEqual({ method: 'POST', url: '/api/processes/p-1/signal', auth: 'Bearer op-token', body: { name: 'approval', data: { approved: true }, signalId: 'sig-1' } });
  });

  it('prints the refusal the dashboard carried, and the dashboard’s error when there is no answer', async () => {
    post = { status: 409, body: { error: 'refused', result: answer('p-1', api(), false, 'refused', 'process is Compensated; signal not used') } };
    const refused: string[] = [];
    expect(await runSignalCommand(env, 'o-1001', api(), (l) => refused.push(l))).toBe(1);
    expect(refused.at(-1)).toBe('refused: process is Compensated; signal not used (signal id sig-1)');

    post = { status: 504, body: { error: 'No scheduler answered' } };
    const silent: string[] = [];
    expect(await runSignalCommand(env, 'o-1001', api(), (l) => silent.push(l))).toBe(1);
    expect(silent.at(-1)).toBe('no answer: No scheduler answered');
  });
});
