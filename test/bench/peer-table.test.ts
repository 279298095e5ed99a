// The peers comparison's arithmetic (issue 24): the ratios sas ÷ each peer, the table that names a
// system that could not run instead of dropping it, the --peers/--systems arguments, and the
// closed loop's order counts (exactly N warm-up orders, the serial run truly 1 in flight). The
// benchmark is plain CommonJS run without a build, so it is loaded with a literal require (which
// knip follows).

interface PeerFigures { p50Ms: number; ordersPerSecond: number; cpuMsPerOrder: number; pssMb: number }
interface PeerRow { system: string; isSas: boolean; isSasLayout?: boolean; figures?: PeerFigures; error?: string; loadBefore: number; loadAfter: number; processes: number; settings: string[] }
interface PeerRatios { peer: string; p50?: number; ordersPerSecond?: number; cpuMsPerOrder?: number; pssMb?: number }

interface PeerTableLib {
  peerRatios: (rows: readonly PeerRow[]) => PeerRatios[];
  renderPeerTable: (rows: readonly PeerRow[]) => string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { peerRatios, renderPeerTable }: PeerTableLib = require('../../bench/lib/peer-table');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { parseArgs }: { parseArgs: (argv: readonly string[]) => Record<string, unknown> } = require('../../bench/lib/parse-args');
interface PeerLoopLib {
  measurePeer: (
    peer: { runOrder: (id: string) => Promise<void>; processes: () => unknown[] },
    settings: Record<string, unknown>,
  ) => Promise<{ figures: PeerFigures; processes: number }>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { measurePeer }: PeerLoopLib = require('../../bench/lib/peer-loop');

const row = (system: string, isSas: boolean, figures?: PeerFigures, error?: string): PeerRow => ({
  system, isSas, figures, error, loadBefore: 1.5, loadAfter: 2.25, processes: 3, settings: [],
});
const sas = row('sas (final status events only)', true, { p50Ms: 38, ordersPerSecond: 81, cpuMsPerOrder: 19.9, pssMb: 674 });
const restate = row('Restate', false, { p50Ms: 11, ordersPerSecond: 221, cpuMsPerOrder: 6.6, pssMb: 517 });

describe('the peers table', () => {
  it('divides sas by each peer, figure by figure, to 2 decimals', () => {
    expect(peerRatios([restate, sas])).toEqual([{ peer: 'Restate', p50: 3.45, ordersPerSecond: 0.37, cpuMsPerOrder: 3.02, pssMb: 1.3 }]);
  });

  it('takes no ratio with a peer that has no figures, or a zero to divide by, and none without sas', () => {
    const dbos = row('DBOS', false, undefined, 'PostgreSQL binaries missing');
    const zero = row('BullMQ chain', false, { p50Ms: 5, ordersPerSecond: 0, cpuMsPerOrder: 3.1, pssMb: 154 });
    expect(peerRatios([dbos, zero, sas])).toEqual([
      { peer: 'DBOS', p50: undefined, ordersPerSecond: undefined, cpuMsPerOrder: undefined, pssMb: undefined },
      { peer: 'BullMQ chain', p50: 7.6, ordersPerSecond: undefined, cpuMsPerOrder: 6.42, pssMb: 4.38 },
    ]);
    expect(peerRatios([restate]).map((r) => r.ordersPerSecond)).toEqual([undefined]);
  });

  it('names a system that could not run, with its reason, and keeps the load', () => {
    const table = renderPeerTable([row('DBOS', false, undefined, 'initdb failed:\n  | no space'), restate, sas]);
    expect(table).toContain('| DBOS | could not run: initdb failed: / no space |');
    expect(table).toContain('| Restate | 11 ms | 221 | 6.6 ms | 517 MB | 3 | 1.50 → 2.25 |');
    expect(table).toContain('| Restate | 3.45 | 0.37 | 3.02 | 1.3 |');
    expect(table).toContain('| DBOS | – | – | – | – |');
  });

  it('gives each other layout of sas its own ratios to the peers, not to sas', () => {
    const up = { ...row('sas as sas up runs it', false, { p50Ms: 22, ordersPerSecond: 110.5, cpuMsPerOrder: 13.2, pssMb: 517 }), isSasLayout: true };
    const table = renderPeerTable([restate, sas, up]);
    expect(table).toContain('| sas as sas up runs it ÷ | p50, 1 in flight |');
    expect(table.split('| sas as sas up runs it ÷ |')[1]).toContain('| Restate | 2 | 0.5 | 2 | 1 |');
    expect(table.split('| sas as sas up runs it ÷ |')[1]).not.toContain('| sas (final status events only) |');
  });

  it('prints no ratio table when sas has no figures', () => {
    expect(renderPeerTable([restate, row('sas', true, undefined, 'redis-server missing')])).not.toContain('sas ÷');
  });
});

describe('--peers arguments', () => {
  it('selects the comparison and, with --systems, some of its systems', () => {
    expect(parseArgs(['--peers', '--systems', 'restate,sas'])).toMatchObject({ peers: true, systems: ['restate', 'sas'] });
    expect(parseArgs([])).toMatchObject({ peers: false, systems: [] });
  });

  it('refuses an unknown system, naming the known ones', () => {
    expect(() => parseArgs(['--peers', '--systems=temporal'])).toThrow(/--systems needs a comma-separated list of bullmq-chain, restate, dbos, sas, sas-shared, sas-up, sas-up-in-memory \(got 'temporal'\)/);
  });
});

describe('the peers closed loop', () => {
  it('runs exactly the warm-up and serial orders asked for, the serial ones one at a time, then keeps 64 in flight', async () => {
    const started: string[] = [];
    let running = 0;
    const peak = new Map<string, number>();
    const peer = {
      processes: () => [],
      runOrder: async (id: string) => {
        started.push(id);
        running += 1;
        const phase = id.split('-')[1] ?? '';
        peak.set(phase, Math.max(peak.get(phase) ?? 0, running));
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
      },
    };
    const result = await measurePeer(peer, {
      warmupOrders: 100, serialOrders: 7, windowSeconds: 0.05, inFlight: 64, stallMs: 30_000,
      idPrefix: 'p', say: () => undefined, signal: new AbortController().signal,
    });
    const count = (phase: string) => started.filter((id) => id.startsWith(`p-${phase}-`)).length;
    expect(count('w')).toBe(100);
    expect(count('s')).toBe(7);
    expect(peak.get('s')).toBe(1);
    expect(peak.get('t')).toBe(64);
    expect(result.figures.ordersPerSecond).toBeGreaterThan(0);
    expect(result.processes).toBe(1); // the benchmark's own process, the application of every system
  });

  it('fails the run when an order fails, with the peer\'s reason', async () => {
    const peer = { processes: () => [], runOrder: async (id: string) => { throw new Error(`remote answered 500 for ${id}`); } };
    await expect(measurePeer(peer, {
      warmupOrders: 1, serialOrders: 1, windowSeconds: 0.05, inFlight: 1, stallMs: 30_000,
      idPrefix: 'f', say: () => undefined, signal: new AbortController().signal,
    })).rejects.toThrow('remote answered 500 for f-w-1');
  });
});
