// The work per order of the peers comparison (decision 110): counter snapshots at both ends of the
// window turned into figures per order, and the table that prints them. The benchmark is plain
// CommonJS run without a build, so it is loaded with a literal require (which knip follows).

interface Snapshot { redis: Record<string, number>; jobAdds: number; mongo: Record<string, number> | undefined }
interface Work { redisCommands: number; redisTop: Record<string, number>; bullmqJobs: number; mongoCommands?: number; mongoByCommand?: Record<string, number> }

interface WorkCountersLib {
  workPerOrder: (before: Snapshot, after: Snapshot, orders: number) => Work | undefined;
  describeWork: (w: Work) => string;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { workPerOrder, describeWork }: WorkCountersLib = require('../../bench/lib/work-counters');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { renderPeerTable }: { renderPeerTable: (rows: readonly unknown[]) => string } = require('../../bench/lib/peer-table');

const before: Snapshot = { redis: { evalsha: 100, xadd: 50, info: 3, scan: 2 }, jobAdds: 40, mongo: { update: 10, find: 5, serverStatus: 1 } };
const after: Snapshot = { redis: { evalsha: 400, xadd: 250, zadd: 30, info: 4, scan: 4, mget: 1 }, jobAdds: 140, mongo: { update: 80, find: 35, insert: 20, serverStatus: 2 } };

describe('the work per order', () => {
  it('divides what each counter gained over the window by the orders finished in it, leaving out the readers\' own commands', () => {
    const w = workPerOrder(before, after, 10);
    expect(w).toEqual({
      redisCommands: 53,
      redisTop: { evalsha: 30, xadd: 20, zadd: 3 },
      bullmqJobs: 10,
      mongoCommands: 12,
      mongoByCommand: { update: 7, find: 3, insert: 2 },
    });
    expect(describeWork(w as Work)).toBe('53 Redis commands (evalsha 30, xadd 20, zadd 3), 10 BullMQ job adds, 12 MongoDB commands (update 7, find 3, insert 2)');
  });

  it('has no MongoDB figure for a system without MongoDB, and no figures at all without orders', () => {
    const w = workPerOrder({ ...before, mongo: undefined }, { ...after, mongo: undefined }, 4);
    expect(w?.mongoCommands).toBeUndefined();
    expect(w?.bullmqJobs).toBe(25);
    expect(workPerOrder(before, after, 0)).toBeUndefined();
  });

  it('is printed under the peers table for the systems that have it, with a dash where MongoDB was not counted', () => {
    const figures = { p50Ms: 5, ordersPerSecond: 300, cpuMsPerOrder: 3, pssMb: 200 };
    const rows = [
      { system: 'BullMQ chain', isSas: false, figures, loadBefore: 1, loadAfter: 1, processes: 3, settings: [], work: { redisCommands: 173.1, redisTop: {}, bullmqJobs: 4.07 } },
      { system: 'Restate', isSas: false, figures, loadBefore: 1, loadAfter: 1, processes: 3, settings: [] },
      { system: 'sas', isSas: true, figures, loadBefore: 1, loadAfter: 1, processes: 11, settings: [], work: { redisCommands: 416, redisTop: {}, bullmqJobs: 9.8, mongoCommands: 12.2 } },
    ];
    const work = renderPeerTable(rows).split('| work per order')[1] ?? '';
    expect(work).toContain('| BullMQ chain | 173.1 | 4.07 | – |');
    expect(work).toContain('| sas | 416 | 9.8 | 12.2 |');
    expect(work).not.toContain('Restate');
  });
});
