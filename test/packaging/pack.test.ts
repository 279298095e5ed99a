import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRegistry, startLocalRegistry } from '../support/local-registry';
import { WORKSPACE_ROOT, run } from '../support/pack-workspace';

/**
 * What each published package holds, as the registry serves it (test/support/local-registry.ts
 * publishes the workspace with `pnpm publish`): built code with its types, a README, a manifest an
 * application can install (no `workspace:`/`catalog:` ranges, an exports map with types, engines,
 * license, repository), nothing of the workspace (sources, tests, maps, build state). Packages only
 * the tests need stay private, and nothing published depends on them.
 */

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  [key: string]: unknown;
}

const WORKSPACE: { dir: string; manifest: Manifest }[] = ['packages', 'services', 'tools'].flatMap((parent) =>
  readdirSync(join(WORKSPACE_ROOT, parent)).map((name) => ({
    dir: `${parent}/${name}`,
    manifest: JSON.parse(readFileSync(join(WORKSPACE_ROOT, parent, name, 'package.json'), 'utf8')) as Manifest,
  })),
);
const SERVICES = WORKSPACE.filter((p) => p.dir.startsWith('services/')).map((p) => p.manifest.name);
const PUBLIC = WORKSPACE.filter((p) => p.manifest.private !== true).map((p) => p.manifest.name);
const ROOT = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };

let registry: LocalRegistry;
let work: string;

beforeAll(async () => {
  registry = await startLocalRegistry();
  work = mkdtempSync(join(tmpdir(), 'sas-pack-'));
  // One tarball per package, fetched as npm would (`npm pack <name>` from the registry).
  const npmrc = join(work, '.npmrc');
  writeFileSync(npmrc, `${registry.scopeLine}\n`);
  run('npm', ['pack', '--silent', ...PUBLIC.map((n) => `${n}@${version(n)}`)], work, 120_000, { ...process.env, npm_config_userconfig: npmrc });
}, 600_000);
afterAll(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

function version(name: string): string {
  return WORKSPACE.find((p) => p.manifest.name === name)?.manifest.version ?? '?';
}
function tarball(name: string): string {
  return join(work, `${name.replace(/^@/, '').replace('/', '-')}-${version(name)}.tgz`);
}
function entries(name: string): string[] {
  return run('tar', ['-tzf', tarball(name)], work).stdout.split('\n').filter(Boolean).sort();
}
function packedManifest(name: string): Manifest {
  return JSON.parse(run('tar', ['-xzOf', tarball(name), 'package/package.json'], work).stdout) as Manifest;
}

describe('which packages are published', () => {
  it('every package but the test-only ones, each at the one version they share', () => {
    expect(registry.published.map((p) => p.replace(/@[^@]+$/, '')).sort()).toEqual([...PUBLIC].sort());
    expect(WORKSPACE.filter((p) => p.manifest.private === true).map((p) => p.manifest.name).sort()).toEqual(['@sas/simulation', '@sas/testkit']);
    expect(new Set(WORKSPACE.map((p) => p.manifest.version)).size).toBe(1);
  });

  it('nothing published depends on a private package', () => {
    const privateNames = WORKSPACE.filter((p) => p.manifest.private === true).map((p) => p.manifest.name);
    const leaks = WORKSPACE.filter((p) => p.manifest.private !== true).flatMap((p) =>
      Object.keys(p.manifest.dependencies ?? {}).filter((d) => privateNames.includes(d)).map((d) => `${p.manifest.name} → ${d}`),
    );
    expect(leaks).toEqual([]);
  });

  it('changesets versions them together: one fixed group of exactly the published packages', () => {
    const config = JSON.parse(readFileSync(join(WORKSPACE_ROOT, '.changeset/config.json'), 'utf8')) as { fixed: string[][]; access: string };
    expect(config.fixed.map((group) => [...group].sort())).toEqual([[...PUBLIC].sort()]);
    expect(config.access).toBe('public');
  });
});

describe.each(PUBLIC.map((name) => ({ name })))('the $name tarball', ({ name }) => {
  it('holds the built entry with its types, and the README', () => {
    const files = entries(name);
    expect(files).toEqual(expect.arrayContaining(['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts']));
    // Every module comes with its declarations.
    expect(files.filter((f) => f.endsWith('.js') && f.startsWith('package/dist/') && !files.includes(f.replace(/\.js$/, '.d.ts')))).toEqual([]);
  });

  it('holds no sources, tests, test helpers, source maps or build state of the workspace', () => {
    const unwanted = entries(name).filter((f) => /\/src\/|\.test\.|test-support|\.map$|\.tsbuildinfo$|^package\/tsconfig/.test(f));
    expect(unwanted).toEqual([]);
  });

  it('has a manifest an application can install: real versions, exports with types, engines, license, repository', () => {
    const manifest = packedManifest(name);
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:|catalog:/);
    expect(manifest).toMatchObject({
      name,
      // A service's main is the module that starts it (deploy/Dockerfile runs it); `exports` gives its API and `./main`.
      main: SERVICES.includes(name) ? './dist/main.js' : './dist/index.js',
      types: './dist/index.d.ts',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      engines: { node: ROOT.engines.node },
      license: 'Apache-2.0',
      repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\//) },
    });
    expect(manifest['private']).toBeUndefined();
    // Our own packages at exactly the version published with them.
    for (const [dep, range] of Object.entries(manifest.dependencies ?? {})) if (dep.startsWith('@sas/')) expect([dep, range]).toEqual([dep, version(dep)]);
  });
});

describe('the client tarball', () => {
  it('depends on the contracts and on nothing else of the workspace', () => {
    // @opentelemetry/api: the client sends the application's active trace context (a no-op without an SDK).
    expect(Object.keys(packedManifest('@sas/client').dependencies ?? {}).sort()).toEqual(['@opentelemetry/api', '@sas/contracts', 'bullmq', 'ioredis', 'zod']);
  });
});

describe('the server tarball', () => {
  it('carries the sas command and every role it runs', () => {
    const manifest = packedManifest('@sas/server');
    expect(manifest['bin']).toEqual({ sas: './bin/sas.js' });
    expect(entries('@sas/server')).toContain('package/bin/sas.js');
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(expect.arrayContaining(['@sas/submission', '@sas/scheduler', '@sas/supervisor', '@sas/dashboard', '@sas/http-agent']));
  });
});

describe('installed from the registry, outside the workspace', () => {
  it('loads the client and contracts with plain npm install and require', () => {
    const app = join(work, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sas-pack-check', private: true }));
    writeFileSync(join(app, '.npmrc'), `${registry.scopeLine}\n`);
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `@sas/client@${version('@sas/client')}`], app, 180_000);
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
