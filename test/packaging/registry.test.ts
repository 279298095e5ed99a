import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess, type OutputLine } from '@sas/stack';
import { type LocalRegistry, applicationEnv, startLocalRegistry } from '../support/local-registry';
import { WORKSPACE_ROOT, run } from '../support/pack-workspace';

/**
 * What a team does with sas, from a registry and nothing else: every publishable package is put on a
 * real local registry (Verdaccio) with `pnpm publish`; a fresh folder outside the workspace, whose
 * `.npmrc` points only the `@sas` scope there, `npm install`s the server, agent and client packages;
 * `npx sas up` runs the core on the folder's own workflows file; two agents written with @sas/agent
 * and orders submitted with @sas/client settle: every order Processed but one, whose refused step
 * is undone (Compensated).
 */

const progress = (message: string): void => {
  process.stdout.write(`[registry ${new Date().toISOString().slice(11, 23)}] ${message}\n`);
};
const version = (JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'tools/cli/package.json'), 'utf8')) as { version: string }).version;

let registry: LocalRegistry;
let app: string;
let up: ManagedProcess | undefined;
let agents: ManagedProcess | undefined;
let exports: Record<string, string> = {};

function appProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): ManagedProcess {
  // Its own process group, so a signal reaches it as a terminal's Ctrl-C would (npx runs sas under a shell).
  return new ManagedProcess({ name, command, args, cwd: app, env: applicationEnv(env), logFile: join(app, `${name}.log`), ownProcessGroup: true });
}

beforeAll(async () => {
  const started = Date.now();
  registry = await startLocalRegistry(progress);
  app = mkdtempSync(join(tmpdir(), 'sas-registry-app-'));
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'signup-app', version: '1.0.0', private: true }));
  writeFileSync(join(app, '.npmrc'), `${registry.scopeLine}\n`);
  cpSync(join(__dirname, 'registry-app'), app, { recursive: true });
  const install = ['npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `@sas/server@${version}`, `@sas/agent@${version}`, `@sas/client@${version}`]] as const;
  run(install[0], [...install[1]], app, 300_000, applicationEnv());
  progress(`npm installed the server, agent and client in ${Date.now() - started} ms (since start)`);
}, 600_000);

afterAll(async () => {
  await agents?.stop();
  await up?.stop(20_000);
  await registry?.stop();
  if (app) rmSync(app, { recursive: true, force: true });
}, 60_000);

describe('installed from a registry into a folder of its own', () => {
  it('publishes every package but the test-only ones', () => {
    const names = registry.published.map((p) => p.replace(/@[^@]+$/, ''));
    expect(names).toEqual(expect.arrayContaining(['@sas/server', '@sas/agent', '@sas/client', '@sas/contracts', '@sas/scheduler', '@sas/http-agent']));
    expect(names).not.toContain('@sas/testkit');
    expect(names).not.toContain('@sas/simulation');
  });

  it('took every @sas package from the registry: no workspace link, no tarball', async () => {
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; integrity?: string; link?: boolean }> };
    const installed = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/@sas/'));
    expect(installed.length).toBeGreaterThanOrEqual(15);
    // Each one is the very tarball the registry serves for that version (its integrity), not a link.
    const notFromRegistry: string[] = [];
    for (const [path, entry] of installed) {
      const name = path.slice('node_modules/'.length);
      const meta = await registry.metadata(name);
      if (entry.link === true || entry.integrity === undefined || meta.versions[entry.version ?? '']?.dist.integrity !== entry.integrity) notFromRegistry.push(name);
    }
    expect(notFromRegistry).toEqual([]);
    const resolved = run(process.execPath, ['-p', "require.resolve('@sas/server/package.json')"], app, 30_000, applicationEnv()).stdout.trim();
    expect(resolved).toBe(join(app, 'node_modules', '@sas', 'server', 'package.json'));
  });

  it('runs the core with npx sas up on its own workflows', async () => {
    up = appProcess('sas-up', 'npx', ['--no-install', 'sas', 'up', '--workflows', 'workflows.json']);
    await up.start();
    await up.waitForLine((l) => l.text.startsWith('sas is up'), 180_000, 'sas is up');
    const line = await up.waitForLine((l) => l.text.includes('export REDIS_URL='), 5_000, 'the export line');
    exports = Object.fromEntries([...line.text.matchAll(/([A-Z_]+)='?([^' ]+)'?/g)].map((m) => [m[1] as string, m[2] as string]));
    expect(Object.keys(exports).sort()).toEqual(['MONGO_DB', 'MONGO_URL', 'QUEUE_PREFIX', 'REDIS_URL']);
    expect(up.lines.map((l) => l.text).join('\n')).toMatch(/^ {4}core-1 \(submission, scheduler, supervisor\) {2}pid \d+/m);
    progress(`sas up: ${exports['REDIS_URL']} prefix ${exports['QUEUE_PREFIX']}`);
  }, 200_000);

  it('settles orders through agents written with @sas/agent: all Processed, the refused one Compensated', async () => {
    agents = appProcess('agents', process.execPath, ['agents.js'], exports);
    await agents.start();
    await agents.waitForLine((l) => l.json?.['msg'] === 'agent ready', 60_000, 'agents ready');
    const submit = appProcess('submit', process.execPath, ['submit.js', 'ann@example.com', 'bob@example.com', 'not-an-address', 'cy@example.com'], exports);
    await submit.start();
    const exit = await submit.whenExited();
    const summary = submit.lines.find((l) => l.json?.['summary'])?.json?.['summary'];
    expect({ exit: exit?.code, summary }).toEqual({
      exit: 0,
      summary: { 'signup-1': 'Processed', 'signup-2': 'Processed', 'signup-3': 'Compensated', 'signup-4': 'Processed' },
    });
    const effects = (agents.lines as readonly OutputLine[]).filter((l) => l.json?.['msg'] === 'effect').map((l) => `${String(l.json?.['effect'])} ${String(l.json?.['orderId'])}`);
    // The refused signup's account was created, then deleted by the undo; no mail went to it.
    expect(effects.filter((e) => e.endsWith('signup-3'))).toEqual(['create signup-3', 'delete signup-3']);
    expect(effects.filter((e) => e.startsWith('send')).sort()).toEqual(['send signup-1', 'send signup-2', 'send signup-4']);
    // The live line counted them.
    await up?.waitForLine((l) => /processes: 4 · Processed 3 · Compensated 1/.test(l.text), 10_000, 'the live counts');
  }, 150_000);

  it('stops every service on Ctrl-C (SIGINT to its process group, as a terminal sends it)', async () => {
    // Everything sas up started runs from the app's node_modules (redis-server aside, checked by its port).
    const running = (): string[] => run('ps', ['-eo', 'pid=,args='], app, 10_000).stdout.split('\n').filter((l) => l.includes(join(app, 'node_modules')) || l.includes(`redis-server 127.0.0.1:${new URL(exports['REDIS_URL'] ?? 'redis://x:1').port}`));
    expect(running().length).toBeGreaterThanOrEqual(5); // sas, redis-server, the embedded MongoDB, the core process (submission, scheduler, supervisor) and the dashboard
    await up?.kill('SIGINT');
    // npm (npx) dies of the SIGINT at once; sas up stops its services and exits on its own.
    const deadline = Date.now() + 30_000;
    while (running().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(running()).toEqual([]);
    expect(up?.lines.some((l) => l.text.startsWith('!!'))).toBe(false);
  }, 60_000);
});
