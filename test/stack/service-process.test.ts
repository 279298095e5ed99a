import { SERVICE_HEAP_LIMIT_MB, SERVICE_SEMI_SPACE_MB, ServiceProcess, type LogFn } from '@sas/stack';
import { waitFor } from '@sas/testkit';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from './process-alive';

/** A stand-in service: logs pino-like JSON, reacts to SIGTERM per MODE, stays alive until told. */
const FAKE_SERVICE = `
const mode = process.env.MODE ?? 'normal';
const log = (msg, extra) => console.log(JSON.stringify({ level: 30, msg, pid: process.pid, ...extra }));
// The handler goes in before 'ready', as in a real service: a test stops it only after 'ready'.
process.on('SIGTERM', () => {
  if (mode === 'ignore-term') { log('ignoring SIGTERM'); return; }
  log('got SIGTERM');
  process.exit(0);
});
const heapLimitMb = Math.round(require('node:v8').getHeapStatistics().heap_size_limit / 2 ** 20);
log('ready', { greeting: process.env.GREETING, heapLimitMb });
console.error('a plain stderr line');
if (mode === 'crash') process.exit(3);
if (mode === 'chatty') for (let i = 1; i <= 7000; i++) console.log('line ' + i);
setInterval(() => {}, 60000);
`;

describe('ServiceProcess', () => {
  let dir: string;
  let script: string;
  const started: ServiceProcess[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sas-service-process-'));
    script = join(dir, 'fake-service.js');
    writeFileSync(script, FAKE_SERVICE);
  });

  afterEach(async () => {
    await Promise.allSettled(started.splice(0).map((p) => p.kill()));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function start(
    name: string,
    env: NodeJS.ProcessEnv = {},
    extra: { logFile?: string; log?: LogFn } = {},
  ) {
    const proc = new ServiceProcess({ name, script, env, ...extra });
    started.push(proc);
    await proc.start();
    return proc;
  }

  it('passes env to the script and finds its JSON log line, parsed', async () => {
    const logFile = join(dir, 'logs', 'svc-1.log');
    const proc = await start('svc-1', { GREETING: 'hello' }, { logFile });
    const ready = await proc.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the ready line');
    expect(ready).toMatchObject({ service: 'svc-1', stream: 'stdout', run: 1 });
    expect(ready.json).toMatchObject({ msg: 'ready', greeting: 'hello', pid: proc.pid });
    const stderr = await proc.waitForLine((l) => l.stream === 'stderr', 10_000, 'a stderr line');
    expect(stderr).toMatchObject({ text: 'a plain stderr line', json: undefined });
    expect(proc.running).toBe(true);

    await proc.stop();
    const written = readFileSync(logFile, 'utf8');
    expect(written).toContain('"msg":"ready"');
    expect(written).toContain('[stderr] a plain stderr line');
  });

  it('runs the service under the services\' heap limits, and under the caller\'s own when it sets one', async () => {
    const limited = await start('svc-heap');
    const own = await start('svc-own-heap', { NODE_OPTIONS: '--max-old-space-size=512' });
    const limits = await Promise.all(
      [limited, own].map(async (p) => (await p.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the ready line')).json?.['heapLimitMb']),
    );
    // The whole heap's limit is the old-space limit plus the young generation's, the same in both:
    // two semi-spaces and a new large-object space of the same size. Node 24's default semi-space
    // (64 MB) would make it 192 MB there, so the services pin Node 22's (decision 126).
    const [limitedMb = 0, ownMb = 0] = limits.map(Number);
    expect(ownMb - limitedMb).toBe(512 - SERVICE_HEAP_LIMIT_MB);
    expect(limitedMb).toBeGreaterThan(SERVICE_HEAP_LIMIT_MB);
    expect(limitedMb).toBeLessThanOrEqual(SERVICE_HEAP_LIMIT_MB + 3 * SERVICE_SEMI_SPACE_MB);
  });

  it('stops with SIGTERM and records the clean, expected exit', async () => {
    const proc = await start('svc-term');
    await proc.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the ready line');
    const pid = proc.pid ?? -1;
    await proc.stop();
    expect(proc.running).toBe(false);
    expect(proc.pid).toBeUndefined();
    expect(proc.exitCode).toBe(0);
    expect(proc.exits).toEqual([{ run: 1, code: 0, signal: null, expected: true }]);
    expect(proc.lines.some((l) => l.json?.msg === 'got SIGTERM')).toBe(true);
    expect(processAlive(pid)).toBe(false);
  });

  it('escalates to SIGKILL when the process ignores SIGTERM past the grace period', async () => {
    const proc = await start('svc-stubborn', { MODE: 'ignore-term' });
    await proc.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the ready line');
    await proc.stop(300);
    expect(proc.lines.some((l) => l.json?.msg === 'ignoring SIGTERM')).toBe(true);
    expect(proc.exitSignal).toBe('SIGKILL');
    expect(proc.exits.at(-1)?.expected).toBe(true);
  });

  it('kills with SIGKILL and waits for the exit', async () => {
    const proc = await start('svc-kill');
    const pid = proc.pid ?? -1;
    await proc.kill();
    expect(processAlive(pid)).toBe(false);
    expect(proc.exitCode).toBeNull();
    expect(proc.exitSignal).toBe('SIGKILL');
    expect(proc.lines.some((l) => l.json?.msg === 'got SIGTERM')).toBe(false);
  });

  it('records and logs an unexpected exit instead of throwing', async () => {
    const logged: Array<{ msg: string; fields?: Record<string, unknown> }> = [];
    const proc = await start(
      'svc-crash',
      { MODE: 'crash' },
      { log: (msg, fields) => logged.push({ msg, fields }) },
    );
    await waitFor(() => proc.exits.length === 1, {
      timeoutMs: 10_000,
      description: 'the crash to be recorded',
    });
    expect(proc.running).toBe(false);
    expect(proc.exitCode).toBe(3);
    expect(proc.exits[0]).toEqual({ run: 1, code: 3, signal: null, expected: false });
    expect(logged).toEqual([
      {
        msg: 'svc-crash exited unexpectedly',
        fields: expect.objectContaining({ service: 'svc-crash', code: 3 }),
      },
    ]);
  });

  it('fails a wait with the description, the service and its last lines on timeout', async () => {
    const proc = await start('svc-quiet');
    await proc.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the ready line');
    const waiting = proc.waitForLine((l) => l.text === 'never printed', 200, 'a line that never comes');
    await expect(waiting).rejects.toThrow(
      /Gave up waiting for a line that never comes from svc-quiet: timed out after 200 ms\. Last lines of svc-quiet:\n.*"msg":"ready"/,
    );
    await expect(waiting).rejects.toThrow('[stderr] a plain stderr line');
  });

  it('fails a pending wait as soon as the process exits', async () => {
    const proc = await start('svc-dies');
    await proc.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the ready line');
    const waiting = proc.waitForLine((l) => l.text === 'never printed', 60_000, 'a line that never comes');
    await proc.kill();
    await expect(waiting).rejects.toThrow(
      'Gave up waiting for a line that never comes from svc-dies: the process exited',
    );
  });

  it('restarts with a new pid and matches only lines of the new run', async () => {
    const proc = await start('svc-restart');
    const first = await proc.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the first ready line');
    await proc.restart();
    const second = await proc.waitForLine((l) => l.json?.msg === 'ready', 10_000, 'the second ready line');
    expect(second.run).toBe(2);
    expect(second.json?.pid).toBe(proc.pid);
    expect(second.json?.pid).not.toBe(first.json?.pid);
    expect(proc.exits).toEqual([{ run: 1, code: 0, signal: null, expected: true }]);
  });

  it('keeps only the most recent lines of a chatty process', async () => {
    const proc = await start('svc-chatty', { MODE: 'chatty' });
    await proc.waitForLine((l) => l.text === 'line 7000', 10_000, 'the last chatty line');
    expect(proc.lines.length).toBeLessThanOrEqual(5500);
    expect(proc.lines.length).toBeGreaterThanOrEqual(5000);
    expect(proc.lines.at(-1)?.text).toBe('line 7000');
    expect(proc.lines.some((l) => l.text === 'line 1')).toBe(false);
  });
});
