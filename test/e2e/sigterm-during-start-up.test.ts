import { join } from 'node:path';
import { ServiceProcess, findWorkspaceRoot, serviceScript, type OutputLine } from '@sas/stack';
import { FaultProxy, TestStack } from '@sas/testkit';

/**
 * A service may be stopped at any moment of its start-up: `sas up` stopped right after it began, a
 * rolling update, a test. SIGTERM then must close what has started and exit 0, with no unhandled
 * error, and the ready line must mean that the connections are up (decision 125). Checked on the
 * shared core process (`sas up`'s default) and on one role alone (submission, whose Redis
 * connection came up last in the core and crashed it), the signal sent as a start-up line
 * appears, several times per moment: the moments are windows, and a run may land anywhere in one.
 */
const RUNS_PER_MOMENT = 2;

type Moment = readonly [description: string, predicate: (line: OutputLine) => boolean];

const msg = (line: OutputLine): unknown => line.json?.['msg'];
const startsWith = (line: OutputLine, prefix: string): boolean => String(msg(line) ?? '').startsWith(prefix);

describe('SIGTERM at any moment of start-up', () => {
  let stack: TestStack;
  const root = findWorkspaceRoot();

  beforeAll(async () => {
    stack = await TestStack.start({ name: 'sigterm-during-start-up' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const processOf = (name: string, script: string, env: NodeJS.ProcessEnv = {}): ServiceProcess =>
    new ServiceProcess({ name, script, env: { ...stack.env, INSTANCE_ID: name, ...env }, logFile: join(stack.logDir, `${name}.log`) });
  const coreScript = (): string => join(root, 'tools', 'cli', 'dist', 'up', 'core-main.js');

  /** Starts a new run, sends SIGTERM once a line matches, and returns that run's number once it has exited. */
  const stopAt = async (proc: ServiceProcess, [description, predicate]: Moment): Promise<number> => {
    await proc.start();
    const run = proc.exits.length + 1;
    try {
      await proc.waitForLine(predicate, 30_000, `${proc.name} to log ${description}`);
    } finally {
      await proc.stop(20_000);
    }
    return run;
  };

  /** What a clean stop of `run` looks like, so a failure shows what differed. */
  const outcome = (proc: ServiceProcess, run: number): unknown => {
    const lines = proc.lines.filter((l) => l.run === run);
    return {
      exit: proc.exits.find((e) => e.run === run),
      stderr: lines.filter((l) => l.stream === 'stderr').map((l) => l.text),
      // Each role logs through a logger of its own, so the process's last line need not be this one.
      shutdownComplete: lines.filter((l) => msg(l) === 'shutdown complete').map((l) => l.json?.['ok']),
      // Closed, not just dropped with the process: each MongoDB connection a role opened.
      storesLeftOpen: lines.filter((l) => startsWith(l, 'connected to MongoDB')).length - lines.filter((l) => msg(l) === 'closed' && l.json?.['component'] === 'store').length,
    };
  };
  const clean = (run: number): unknown => ({ exit: { run, code: 0, signal: null, expected: true }, stderr: [], shutdownComplete: [true], storesLeftOpen: 0 });

  describe('of the shared core process (submission, scheduler and supervisor in one)', () => {
    let core: ServiceProcess;
    beforeAll(() => {
      core = processOf('core', coreScript());
    });
    afterAll(async () => {
      await core?.stop();
    });

    const moments: Moment[] = [
      ['its first line', (l) => msg(l) === 'core starting'],
      ['its first role connected to MongoDB', (l) => startsWith(l, 'connected to MongoDB')],
      ['its first Redis connection ready', (l) => msg(l) === 'redis connection ready'],
      // Submission starts last: from here to the ready line the process waits for its connections.
      ['its last role connected to MongoDB', (l) => l.json?.['service'] === 'submission' && startsWith(l, 'connected to MongoDB')],
      ['core ready', (l) => msg(l) === 'core ready'],
    ];
    it.each(moments)('exits 0 with nothing unhandled when the signal comes on %s', async (...moment) => {
      for (let i = 0; i < RUNS_PER_MOMENT; i += 1) {
        const run = await stopAt(core, moment);
        expect(outcome(core, run)).toEqual(clean(run));
      }
    });

    it('reports each role ready, and then the process, only after that role connected to MongoDB and Redis', async () => {
      const run = await stopAt(core, ['core ready', (l) => msg(l) === 'core ready']);
      const lines = core.lines.filter((l) => l.run === run && l.json !== undefined);
      const at = (service: string, matches: (l: OutputLine) => boolean): number => lines.findIndex((l) => l.json?.['service'] === service && matches(l));
      const timeOf = (index: number): string => String(lines[index]?.json?.['time']);
      const coreReady = at('core', (l) => msg(l) === 'core ready');
      for (const role of ['supervisor', 'scheduler', 'submission']) {
        const mongo = at(role, (l) => startsWith(l, 'connected to MongoDB'));
        const redis = at(role, (l) => msg(l) === 'redis connection ready');
        const ready = at(role, (l) => msg(l) === `${role} ready`);
        // One logger per role keeps its lines in order; the core's own logger is another, so across the two, times are compared.
        expect({ role, mongoBeforeReady: mongo >= 0 && mongo < ready, redisBeforeReady: redis >= 0 && redis < ready, coreReadyAfterRedis: timeOf(coreReady) >= timeOf(redis) }).toEqual({
          role,
          mongoBeforeReady: true,
          redisBeforeReady: true,
          coreReadyAfterRedis: true,
        });
      }
    });
  });

  describe('of a role alone in its process (submission)', () => {
    let submission: ServiceProcess;
    beforeAll(() => {
      submission = processOf('submission', serviceScript(root, 'submission'));
    });
    afterAll(async () => {
      await submission?.stop();
    });

    const moments: Moment[] = [
      ['its first line', (l) => msg(l) === 'submission starting'],
      ['connected to MongoDB', (l) => startsWith(l, 'connected to MongoDB')],
      // The ready line follows once the wait for the connections has seen it.
      ['its Redis connection ready', (l) => msg(l) === 'redis connection ready'],
      ['submission ready', (l) => msg(l) === 'submission ready'],
    ];
    it.each(moments)('exits 0 with nothing unhandled when the signal comes on %s', async (...moment) => {
      for (let i = 0; i < RUNS_PER_MOMENT; i += 1) {
        const run = await stopAt(submission, moment);
        expect(outcome(submission, run)).toEqual(clean(run));
      }
    });

    it('reports ready only after it connected to MongoDB and Redis', async () => {
      const run = await stopAt(submission, ['submission ready', (l) => msg(l) === 'submission ready']);
      const said = submission.lines.filter((l) => l.run === run && l.json !== undefined).map((l) => String(msg(l)));
      const ready = said.indexOf('submission ready');
      expect({
        mongo: said.findIndex((m) => m.startsWith('connected to MongoDB')) >= 0 && said.findIndex((m) => m.startsWith('connected to MongoDB')) < ready,
        redis: said.indexOf('redis connection ready') >= 0 && said.indexOf('redis connection ready') < ready,
      }).toEqual({ mongo: true, redis: true });
    });
  });
  /**
   * Redis that answers slowly: each connection becomes ready some time after the others, and
   * BullMQ's own start on it (a version check) is still waiting for its answer when the signal
   * closes it. The closed Queue or Worker no longer listens to it then; unheard, that error ended
   * the process (decision 125).
   */
  describe('while Redis answers slowly (every byte 700 ms late; a reply 1.4 s)', () => {
    let proxy: FaultProxy;
    let submission: ServiceProcess;
    let core: ServiceProcess;
    beforeAll(async () => {
      proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: Number(new URL(stack.env['REDIS_URL'] ?? '').port) } });
      // Below the connections' stall bound (3 s), so they come up slowly rather than being dropped.
      proxy.set({ kind: 'delay', delayMs: 700 });
      const env = { REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
      submission = processOf('slow-submission', serviceScript(root, 'submission'), env);
      core = processOf('slow-core', coreScript(), env);
    });
    afterAll(async () => {
      await submission?.stop();
      await core?.stop();
      await proxy?.stop();
    });

    it.each([
      ['submission alone', () => submission],
      ['the core process', () => core],
    ])('%s exits 0 with nothing unhandled on SIGTERM as its first Redis connection is ready', async (_name, proc) => {
      for (let i = 0; i < RUNS_PER_MOMENT; i += 1) {
        const run = await stopAt(proc(), ['its first Redis connection ready', (l) => msg(l) === 'redis connection ready']);
        expect(outcome(proc(), run)).toEqual(clean(run));
      }
    });
  });

  describe('while Redis answers nothing (a link that passes no byte)', () => {
    let proxy: FaultProxy;
    let submission: ServiceProcess;
    beforeAll(async () => {
      proxy = await FaultProxy.start({ target: { host: '127.0.0.1', port: Number(new URL(stack.env['REDIS_URL'] ?? '').port) } });
      proxy.set({ kind: 'blackhole' });
      submission = processOf('cut-submission', serviceScript(root, 'submission'), { REDIS_URL: `redis://127.0.0.1:${proxy.port}` });
    });
    afterAll(async () => {
      await submission?.stop();
      await proxy?.stop();
    });

    it('says it is not ready and that it waits for Redis, and on SIGTERM then exits 0', async () => {
      const run = await stopAt(submission, ['that it is not ready yet', (l) => startsWith(l, 'submission is not ready yet')]);
      const said = submission.lines.filter((l) => l.run === run).map((l) => String(msg(l) ?? ''));
      expect({
        waitingFor: said.filter((m) => m.startsWith('submission is not ready yet')).map((m) => m.includes(`waiting for Redis at 127.0.0.1:${proxy.port}`)),
        ready: said.includes('submission ready'),
      }).toEqual({ waitingFor: [true], ready: false });
      expect(outcome(submission, run)).toEqual(clean(run));
    });
  });
});
