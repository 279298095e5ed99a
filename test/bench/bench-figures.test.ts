// The benchmark's arithmetic, without running anything: argument parsing, the measured window of
// a closed loop, the recovery figure, and the ratios of bench/results/latest.json that issue 8
// names. The benchmark is plain CommonJS run without a build, so it is loaded with a literal
// require (which knip follows).

interface LatencyStats { count: number; p50: number; p95: number; p99: number; max: number; mean: number }
interface Completion { orderId: string; submittedAt: number; doneAt: number; status: string }
interface WindowFigures {
  windowSeconds: number;
  completed: number;
  ordersPerSecond: number;
  p50Ms: number;
  p95Ms: number;
  latencyMs: LatencyStats;
  notProcessed: Record<string, number>;
  orderIds: string[];
}
interface RecoveryOrder { orderId: string; redispatched: boolean; doneAt: number; status: string }
type Report = Record<string, Record<string, unknown>>;

interface ParseArgsLib {
  parseArgs: (argv: readonly string[]) => Record<string, number | boolean | string>;
  DEFAULTS: Record<string, number | boolean>;
  QUICK: Record<string, number>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { parseArgs, DEFAULTS, QUICK }: ParseArgsLib = require('../../bench/lib/parse-args');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { windowFigures }: { windowFigures: (c: readonly Completion[], start: number, end: number) => WindowFigures } = require('../../bench/lib/window-figures');
interface BenchFiguresLib {
  buildReport: (m: unknown) => Report;
  recoveryFigures: (input: { killAt: number; orders: readonly RecoveryOrder[]; completeByMs: number; sweepIntervalMs: number }) => Record<string, unknown>;
  verdict: (name: string, value: number | undefined) => string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { buildReport, recoveryFigures, verdict }: BenchFiguresLib = require('../../bench/lib/bench-figures');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { renderReport }: { renderReport: (r: Report) => string } = require('../../bench/lib/render-report');

describe('bench parseArgs', () => {
  it('gives the defaults, and --quick changes only what was not given explicitly', () => {
    expect(parseArgs([])).toEqual({ ...DEFAULTS });
    const quick = parseArgs(['--', '--quick', '--window-seconds=5']);
    expect(quick['windowSeconds']).toBe(5);
    expect(quick['preload']).toBe(QUICK['preload']);
    expect(quick['warmupSeconds']).toBe(QUICK['warmupSeconds']);
  });

  it('accepts --preload 0 (skip) but refuses a zero window, a fraction of a process and unknown flags, naming them', () => {
    expect(parseArgs(['--preload', '0'])['preload']).toBe(0);
    expect(() => parseArgs(['--window-seconds', '0'])).toThrow(/--window-seconds needs a positive number \(got '0'\)/);
    expect(() => parseArgs(['--preload', '1.5'])).toThrow(/--preload needs a whole number/);
    expect(() => parseArgs(['--preload'])).toThrow(/got 'undefined'/);
    expect(() => parseArgs(['--orders', '10'])).toThrow(/Unknown argument '--orders'/);
  });

  it('has orders ask for final status events unless told all, and refuses any other choice', () => {
    expect(parseArgs([])['statusEvents']).toBe('final');
    expect(parseArgs(['--status-events', 'all'])['statusEvents']).toBe('all');
    expect(parseArgs(['--status-events=final'])['statusEvents']).toBe('final');
    expect(() => parseArgs(['--status-events', 'some'])).toThrow(/--status-events needs final or all \(got 'some'\)/);
  });
});

describe('bench windowFigures', () => {
  const c = (orderId: string, submittedAt: number, doneAt: number, status = 'Processed'): Completion => ({ orderId, submittedAt, doneAt, status });

  it('counts only orders Processed inside the window, and keeps other final states apart from the rate', () => {
    const completions = [
      c('warm-up', 0, 900), // before the window
      c('a', 900, 1000), // on the start edge
      c('b', 1000, 1500),
      c('failed', 1200, 1600, 'Failed'),
      c('c', 1300, 3000), // on the end edge
      c('drain', 2500, 3001), // after the window
    ];
    const f = windowFigures(completions, 1000, 3000);
    expect(f.completed).toBe(3);
    expect(f.ordersPerSecond).toBe(1.5);
    expect(f.orderIds).toEqual(['a', 'b', 'c']);
    expect(f.notProcessed).toEqual({ Failed: 1 });
    expect(f.p50Ms).toBe(500); // latencies 100, 500, 1700
    expect(f.latencyMs.max).toBe(1700);
  });

  it('refuses an empty or inverted window instead of dividing by zero', () => {
    expect(() => windowFigures([], 10, 10)).toThrow(/must come after its start/);
  });
});

describe('bench recoveryFigures', () => {
  it('times the kill to the last re-dispatched order, and gives the target', () => {
    const r = recoveryFigures({
      killAt: 1000,
      completeByMs: 5000,
      sweepIntervalMs: 1000,
      orders: [
        { orderId: 'quick', redispatched: false, doneAt: 1050, status: 'Processed' },
        { orderId: 'slow-but-unaffected', redispatched: false, doneAt: 9000, status: 'Processed' },
        { orderId: 'held-by-the-dead-agent', redispatched: true, doneAt: 7400, status: 'Processed' },
      ],
    });
    expect(r).toMatchObject({ ms: 6400, targetMs: 7000, affectedOrders: 1, ordersInFlightAtKill: 3, basis: 'redispatched', notProcessed: {} });
  });

  it('falls back to every order in flight at the kill when none was re-dispatched, and says so', () => {
    const r = recoveryFigures({ killAt: 0, completeByMs: 5000, sweepIntervalMs: 1000, orders: [{ orderId: 'a', redispatched: false, doneAt: 120, status: 'Compensated' }] });
    expect(r).toMatchObject({ ms: 120, affectedOrders: 0, basis: 'in flight at the kill', notProcessed: { Compensated: 1 } });
  });

  it('refuses to report a recovery time when an affected order never finished', () => {
    expect(() => recoveryFigures({ killAt: 0, completeByMs: 5000, sweepIntervalMs: 1000, orders: [{ orderId: 'lost', redispatched: true, doneAt: Number.NaN, status: 'unknown' }] })).toThrow(/never finished \(lost\)/);
  });
});

describe('bench buildReport', () => {
  const stats = (p50: number, p95 = p50 * 2): LatencyStats => ({ count: 10, p50, p95, p99: p95, max: p95, mean: p50 });
  const loop = (ordersPerSecond: number, p50Ms: number, completed = 100) => ({
    inFlight: 1,
    warmupSeconds: 1,
    windowSeconds: 8,
    completed,
    ordersPerSecond,
    p50Ms,
    p95Ms: p50Ms * 2,
    latencyMs: stats(p50Ms),
    notProcessed: {},
    orderIds: ['x'],
    storeLatencyMs: stats(p50Ms - 1),
  });
  const role = (peakKb: number, cpuSeconds: number) => ({ peakKb, restKb: peakKb / 2, cpuSeconds, processes: 1 });
  const measurements = {
    startedAt: '2026-01-01T00:00:00.000Z',
    machine: { cpus: 2, cpuModel: 'test', memoryMb: 1024, node: 'v20', platform: 'linux' },
    options: {},
    topology: '9 service processes',
    baseline: {
      k1: { inFlight: 1, workerConcurrency: 1, windowSeconds: 3, roundTripsPerSecond: 1000, latencyMs: stats(0.8), responderPeakKb: 70 * 1024, cpuMsPerRoundTrip: 0.5 },
      k64: { inFlight: 64, workerConcurrency: 64, windowSeconds: 3, roundTripsPerSecond: 2400, latencyMs: stats(20), responderPeakKb: 96 * 1024, cpuMsPerRoundTrip: 1 },
    },
    sas: { k1: loop(10, 4.8), k64: loop(400, 150, 1000) },
    roles: { scheduler: role(120 * 1024, 6), 'agent-payment': role(100 * 1024, 2), redis: role(20 * 1024, 1), 'bench driver': role(80 * 1024, 50) },
    preload: { processes: 100_000, events: 400_000, seconds: 15, k1: loop(9, 6), k64: loop(300, 200) },
    scaling: { replicas: [1, 2, 4], runs: [loop(20, 1500), loop(38, 800), loop(70, 450)], remoteLatencyMs: 50, agentConcurrency: 1, inFlight: 32 },
    recovery: { ms: 6500, targetMs: 7000, completeByMs: 5000, sweepIntervalMs: 1000, ordersInFlightAtKill: 16, affectedOrders: 3, basis: 'redispatched', notProcessed: {} },
    cluster: { shards: [1, 3], runs: [loop(40, 1600), loop(36, 1800)], inFlight: 64 },
    mongo: { embedded: [] },
  };

  it('writes every key issue 8 names, as numbers, with the ratios as defined there', () => {
    const report = buildReport(measurements);
    const at = (path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], report);
    for (const key of ['baseline.k1.p50Ms', 'baseline.k64.roundTripsPerSecond', 'sas.k1.p50Ms', 'sas.k64.ordersPerSecond', 'ratios.latencyOverheadK1', 'ratios.throughputEfficiencyK64', 'preload.processes', 'ratios.preloadedLatency', 'ratios.preloadedThroughput', 'recovery.ms']) {
      expect(typeof at(key)).toBe('number');
    }
    expect(at('ratios.latencyOverheadK1')).toBe(2); // 4.8 / (3 × 0.8)
    expect(at('ratios.throughputEfficiencyK64')).toBe(0.5); // 400 / (2400 / 3)
    expect(at('ratios.preloadedLatency')).toBe(1.25); // 6 / 4.8
    expect(at('ratios.preloadedThroughput')).toBe(0.75); // 300 / 400
    expect(at('scaling.ordersPerSecond')).toEqual([20, 38, 70]);
    expect(at('scaling.linearity')).toBe(0.875); // 70 / (4 × 20)
    expect(at('scaling.linearityPerStep')).toEqual([1, 0.95, 0.875]);
    expect(at('scaling.remoteBoundOrdersPerSecond')).toEqual([20, 40, 80]);
    expect(at('ratios.recoveryOverTarget')).toBe(0.929);
    expect(at('cluster.ordersPerSecond')).toEqual({ oneShard: 40, threeShards: 36 });
    expect(at('cluster.p50Ms')).toEqual({ oneShard: 1600, threeShards: 1800 });
    expect(at('ratios.threeShardsOverOne')).toBe(0.9); // 36 / 40
    expect(at('memory.peakRssMb')).toEqual({ scheduler: 120, 'agent-payment': 100, redis: 20, 'bench driver': 80 });
    // CPU of everything but the application (the bench driver): 9 s over 1000 orders = 9 ms an order, 3 a step.
    expect(at('sas.k64.cpuMsPerOrder')).toBe(9);
    expect(at('sas.k64.cpuMsPerStep')).toBe(3);
    expect(at('ratios.cpuPerStepOverRoundTrip')).toBe(3);
    expect(JSON.stringify(report)).not.toContain('orderIds');
  });

  it('reports the cold baseline and the slow-remote scaling series beside the issue\'s figures, without judging them', () => {
    const cold = { ...measurements.baseline.k1, idleGapMs: 20, latencyMs: stats(1.6) };
    const slowScaling = { ...measurements.scaling, remoteLatencyMs: 250, runs: [loop(3.5, 2000), loop(7, 2000), loop(13.3, 2000)] };
    const report = buildReport({ ...measurements, baseline: { ...measurements.baseline, k1Idle: cold }, slowScaling });
    const at = (path: string): unknown => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], report);
    expect(at('baseline.k1Idle')).toMatchObject({ idleGapMs: 20, p50Ms: 1.6 });
    expect(at('ratios.latencyOverColdK1')).toBe(1); // 4.8 / (3 × 1.6)
    expect(at('ratios.latencyOverheadK1')).toBe(2); // the ratio is unchanged by it
    expect(at('slowScaling.remoteBoundOrdersPerSecond')).toEqual([4, 8, 16]);
    expect(at('slowScaling.linearity')).toBe(0.95); // 13.3 / (4 × 3.5)
    expect(at('ratios.slowRemoteScalingLinearity')).toBe(0.95);
    expect(at('ratios.scalingLinearity')).toBe(0.875); // still the 50 ms series
    const text = renderReport(report);
    expect(text).toMatch(/1 in flight, 20 ms idle before each\s+p50 1\.60 ms/);
    expect(text).toMatch(/against round trips as cold as its own\s+3 × 1\.60 ms = 4\.80 ms\s+1\.00×\n/);
    expect(text).toContain('Scaling where the remote dominates on this machine: remote-sim at 250 ms');
    // Judged once, on the 50 ms series only.
    expect(text.match(/≥ 0\.90×/g)).toHaveLength(1);
    expect(renderReport(buildReport(measurements))).not.toContain('where the remote dominates');
  });

  it('leaves the preloaded ratios out when the preload was skipped', () => {
    const report = buildReport({ ...measurements, preload: undefined });
    expect(report['preload']).toEqual({ processes: 0 });
    expect(report['ratios']).not.toHaveProperty('preloadedLatency');
  });

  it('judges each ratio against its target in the right direction', () => {
    expect(verdict('latencyOverheadK1', 1.4)).toBe('moonshot');
    expect(verdict('latencyOverheadK1', 2.0)).toBe('met');
    expect(verdict('latencyOverheadK1', 2.01)).toBe('missed');
    expect(verdict('throughputEfficiencyK64', 0.49)).toBe('missed');
    expect(verdict('throughputEfficiencyK64', 0.6)).toBe('met');
    expect(verdict('peakRssMb', 151)).toBe('missed');
    expect(verdict('preloadedLatency', undefined)).toBe('n/a');
  });

  it('prints each figure next to its baseline, ratio and target', () => {
    const text = renderReport(buildReport(measurements));
    expect(text).toMatch(/latency, 1 in flight \(submit → Processed\)\s+p50 4\.80 ms, p95 9\.60 ms, n 100\s+3 × 0\.80 ms = 2\.40 ms\s+2\.00×\s+≤ 2\.00× \(moonshot 1\.5×\)\s+met/);
    expect(text).toMatch(/throughput, 64 in flight\s+400 orders\/s, p50 150 ms\s+2,400 rt\/s ÷ 3 = 800\s+0\.50×\s+≥ 0\.50×.*met/);
    expect(text).toMatch(/4 replicas of each agent\s+70\.0 orders\/s\s+remote allows 80\.0, linear 80\.0\s+0\.88×\s+≥ 0\.90×\s+missed/);
    expect(text).not.toContain('the machine, not the remote');
    const cpuBound = buildReport({ ...measurements, scaling: { ...measurements.scaling, runs: [loop(12, 1500), loop(13, 800), loop(13, 450)] } });
    expect(renderReport(cpuBound)).toContain('1 replica reached 12.0 of the 20.0 orders/s the remote allows: the machine, not the remote, limits these rates');
    expect(text).toMatch(/kill → last affected order Processed\s+6,500 ms, 3 of 16 affected\s+5,000 \+ 1,000 \+ 1,000 = 7,000 ms\s+0\.93×\s+≤ 1\.00×\s+met/);
    expect(text).not.toContain('the kill caught no request');
  });
});
