import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKSPACE_ROOT, npmInstall, packWorkspacePackages, run } from '../support/pack-workspace';

/**
 * `@sas/contracts` and `@sas/client` are meant to be installed by applications as ordinary
 * packages. This packs them as they would be published (needs `tsc -b` first, like every test)
 * and checks what an application would get: the built code and types, a README, nothing of the
 * workspace (sources, tests, `workspace:`/`catalog:` ranges), and that the two tarballs install
 * from npm and load without the workspace around them.
 */

const PACKAGES = [
  { name: '@sas/contracts', dir: 'packages/contracts' },
  { name: '@sas/client', dir: 'packages/client' },
] as const;

let work: string;
let tarballs = new Map<string, string>();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sas-pack-'));
  tarballs = packWorkspacePackages(PACKAGES.map((p) => p.dir), work);
}, 180_000);
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function tarball(name: string): string {
  const path = tarballs.get(name);
  if (!path) throw new Error(`${name} was not packed`);
  return path;
}

function entries(name: string): string[] {
  return run('tar', ['-tzf', tarball(name)], work).stdout.split('\n').filter(Boolean).sort();
}

function packedManifest(name: string): Record<string, unknown> {
  return JSON.parse(run('tar', ['-xzOf', tarball(name), 'package/package.json'], work).stdout) as Record<string, unknown>;
}

describe.each(PACKAGES)('the $name tarball', ({ name }) => {
  it('holds the built entry, its types and the README', () => {
    const files = entries(name);
    expect(files).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts']));
    const js = files.filter((f) => f.endsWith('.js'));
    // Every module comes with its declarations.
    expect(js.filter((f) => !files.includes(f.replace(/\.js$/, '.d.ts')))).toEqual([]);
  });

  it('holds no sources, tests, source maps or build state of the workspace', () => {
    const unwanted = entries(name).filter((f) => /\/src\/|\.test\.|\.map$|\.tsbuildinfo$|^package\/tsconfig/.test(f));
    expect(unwanted).toEqual([]);
  });

  it('has a manifest an application can install: no workspace ranges, an exports map with types, engines', () => {
    const manifest = packedManifest(name);
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:|catalog:/);
    expect(manifest).toMatchObject({
      name,
      main: './dist/index.js',
      types: './dist/index.d.ts',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      engines: { node: expect.stringMatching(/^>=\d+/) },
    });
    expect(manifest['private']).toBeUndefined();
  });
});

describe('the client tarball', () => {
  it('depends on the contracts at the version packed with it, and on nothing else of the workspace', () => {
    const dependencies = packedManifest('@sas/client')['dependencies'] as Record<string, string>;
    const contractsVersion = String(packedManifest('@sas/contracts')['version']);
    // @opentelemetry/api: the client sends the application's active trace context (a no-op without an SDK).
    expect(Object.keys(dependencies).sort()).toEqual(['@opentelemetry/api', '@sas/contracts', 'bullmq', 'ioredis', 'zod']);
    expect(dependencies['@sas/contracts']).toBe(contractsVersion);
  });
});

describe('installed from the two tarballs, outside the workspace', () => {
  it('loads with plain npm install and require, without workspace links', () => {
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sas-pack-check', private: true }));
    // The registry supplies bullmq, ioredis and zod; both tarballs are given, so @sas/contracts comes from ours.
    npmInstall(app, [tarball('@sas/contracts'), tarball('@sas/client')]);
    const check = [
      "const client = require('@sas/client');",
      "const contracts = require('@sas/contracts');",
      "const id = client.submissionJobId({ orderId: 'o:1', workflow: 'order-fulfilment', payload: { sku: 'kettle' } });",
      "console.log(JSON.stringify({ client: typeof client.SasClient, id, schema: typeof contracts.SubmissionMessage.safeParse,",
      "  contracts: require.resolve('@sas/contracts'), description: require('@sas/contracts/package.json').description }));",
    ].join('\n');
    const loaded = JSON.parse(run(process.execPath, ['-e', check], app).stdout) as Record<string, string>;
    expect(loaded).toMatchObject({
      client: 'function',
      id: expect.stringMatching(/^o%3A1\.[0-9a-f]{16}$/),
      schema: 'function',
      contracts: expect.stringContaining(join(app, 'node_modules', '@sas', 'contracts')),
      description: JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'packages/contracts/package.json'), 'utf8')).description,
    });
  }, 180_000);
});
