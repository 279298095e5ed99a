// `pnpm bench -- --profile` charges each CPU sample to a library, or to our code: the figures
// docs/performance.md rests on. Plain CommonJS without a build, so loaded with a literal require
// (which knip follows).

interface ProfileNode { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
interface Summary { cpuUs: number; idleUs: number; programUs: number; byGroup: Record<string, number> }

interface ProfileSummaryLib {
  summarizeProfile: (p: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }) => Summary;
  addSummaries: (s: readonly Summary[]) => { cpuUs: number; byGroup: Record<string, number> };
  groupOfUrl: (url: string) => string | undefined;
  GROUPS: readonly string[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { summarizeProfile, addSummaries, groupOfUrl, GROUPS }: ProfileSummaryLib = require('../../bench/lib/profile-summary');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- bench/ is plain CommonJS without types; a literal require is what knip follows
const { parseArgs }: { parseArgs: (argv: readonly string[]) => Record<string, unknown> } = require('../../bench/lib/parse-args');

const PNPM = 'file:///work/node_modules/.pnpm';

/** A profile from a tree given as [id, functionName, url, children] and samples as [nodeId, µs]. */
function profile(tree: Array<[number, string, string, number[]]>, samples: Array<[number, number]>) {
  return {
    nodes: tree.map(([id, functionName, url, children]) => ({ id, callFrame: { functionName, url }, children })),
    samples: samples.map(([id]) => id),
    timeDeltas: samples.map(([, us]) => us),
    startTime: 0,
    endTime: samples.reduce((t, [, us]) => t + us, 0),
  };
}

describe('groupOfUrl', () => {
  it.each([
    [`${PNPM}/mongodb@6.20.0/node_modules/mongodb/lib/cmap/connection.js`, 'MongoDB driver + bson'],
    [`${PNPM}/bson@6.10.4/node_modules/bson/lib/bson.cjs`, 'MongoDB driver + bson'],
    [`${PNPM}/bullmq@5.0.0/node_modules/bullmq/dist/cjs/classes/worker.js`, 'BullMQ + ioredis'],
    [`${PNPM}/ioredis@5.8.0/node_modules/ioredis/built/Redis.js`, 'BullMQ + ioredis'],
    [`${PNPM}/zod@3.25.0/node_modules/zod/lib/types.js`, 'zod'],
    [`${PNPM}/sonic-boom@4.0.0/node_modules/sonic-boom/index.js`, 'pino'],
    [`${PNPM}/@opentelemetry+api@1.9.0/node_modules/@opentelemetry/api/build/src/index.js`, 'other libraries'],
    ['file:///work/main/packages/engine/dist/process-engine.js', 'sas (our code)'],
    ['file:///work/main/services/agent/dist/http-agent.js', 'sas (our code)'],
    ['file:///work/main/packages/embedded-mongo/dist/server.js', 'embedded MongoDB (the stand-in)'],
  ])('%s is %s', (url, group) => {
    expect(groupOfUrl(url)).toBe(group);
  });

  it("leaves Node's own modules and native frames to their caller", () => {
    expect(groupOfUrl('node:internal/process/task_queues')).toBeUndefined();
    expect(groupOfUrl('')).toBeUndefined();
  });
});

describe('summarizeProfile', () => {
  const tree: Array<[number, string, string, number[]]> = [
    [1, '(root)', '', [2, 3, 4, 5, 9, 12]],
    [2, '(idle)', '', []],
    [3, '(program)', '', []],
    [4, '(garbage collector)', '', []],
    [5, 'processTicksAndRejections', 'node:internal/process/task_queues', [6, 8]],
    [6, 'apply', 'file:///work/main/packages/engine/dist/process-engine.js', [7]],
    [7, 'stringify', '', [10]],
    [8, 'runMicrotasks', '', []],
    [9, 'addJob', `${PNPM}/bullmq@5.0.0/node_modules/bullmq/dist/cjs/classes/job.js`, [11]],
    [10, 'writeGeneric', 'node:internal/stream_base_commons', []],
    [11, 'request', 'node:_http_client', []],
    [12, 'post', 'file:///work/main/bench/lib/cpu-profile-preload.js', [13]],
    [13, 'dispatch', '', []],
  ];

  it("charges native and Node frames to the nearest package below them, and leaves idle, (program) and the profiler's own calls out", () => {
    const s = summarizeProfile(profile(tree, [[2, 500], [3, 300], [4, 40], [6, 100], [7, 20], [10, 5], [8, 7], [9, 60], [11, 11], [13, 900]]));
    expect(s.idleUs).toBe(500);
    expect(s.programUs).toBe(300);
    expect(s.cpuUs).toBe(40 + 100 + 20 + 5 + 7 + 60 + 11);
    expect(s.byGroup).toMatchObject({
      'garbage collection': 40,
      // JSON.stringify and the socket write it led to, called from the engine: ours.
      'sas (our code)': 125,
      // Microtasks with no package on the stack stay Node's.
      'Node/V8': 7,
      'BullMQ + ioredis': 60,
      // node:http work is named as HTTP even under a library.
      'HTTP (node:http, undici)': 11,
    });
    expect(Object.keys(s.byGroup)).toEqual([...GROUPS]);
  });

  it('adds the summaries of several processes', () => {
    const one = summarizeProfile(profile(tree, [[6, 100], [9, 50]]));
    const two = summarizeProfile(profile(tree, [[9, 30], [4, 10]]));
    const sum = addSummaries([one, two]);
    expect(sum.cpuUs).toBe(190);
    expect(sum.byGroup).toMatchObject({ 'sas (our code)': 100, 'BullMQ + ioredis': 80, 'garbage collection': 10 });
  });
});

describe('bench --profile', () => {
  it('is a flag of its own and off by default', () => {
    expect(parseArgs([])['profile']).toBe(false);
    expect(parseArgs(['--profile', '--quick'])).toMatchObject({ profile: true, quick: true });
  });
});
