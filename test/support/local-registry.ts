import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ManagedProcess, freePort } from '@sas/stack';
import { WORKSPACE_ROOT, pnpm, run } from './pack-workspace';

/**
 * A real npm registry (Verdaccio, a dev dependency) on a loopback port, holding every publishable
 * package of the workspace as `pnpm publish` put it there. Applications in tests install from it as
 * a team would from npm: only the `@sas` scope points here; everything else comes from the machine's
 * usual npm registry.
 */
export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  /** The `.npmrc` line that sends the `@sas` scope (and only it) here. */
  readonly scopeLine: string;
  /** The names and versions published, e.g. `@sas/client@0.1.0`. */
  readonly published: readonly string[];
  /** The registry's document of a package (`GET /<name>`): its versions, each with `dist.integrity`. */
  metadata(name: string): Promise<{ versions: Record<string, { dist: { integrity: string } }> }>;
  stop(): Promise<void>;
}

/** A user the registry lets publish; the registry lives in a temp dir and only on loopback. */
const PUBLISHER = { name: 'sas-publisher', password: 'local-registry-only' };

/** What `pnpm publish` sends: built output, manifests and READMEs of the workspace packages. */
const PACKAGE_PARENTS = ['packages', 'services', 'tools'];

/**
 * Where the registry storages of this checkout live: one folder per checkout (several may share the
 * machine). SAS_TEST_REGISTRY_DIR moves it: CI's second-Node lane runs with a TMPDIR of its own and
 * points this back at the first lane's, so the two share one publish (scripts/run.mjs, decision 126).
 */
function buildsDir(): string {
  const parent = process.env['SAS_TEST_REGISTRY_DIR'] || join(tmpdir(), 'sas-registry');
  return join(parent, createHash('sha256').update(WORKSPACE_ROOT).digest('hex').slice(0, 12));
}

/**
 * Starts the registry. Its storage is named by a hash of everything the packages would publish, so
 * the packages are published once per build: a later test file (or run, or a jest running beside
 * this one) over the same build starts a registry on that storage and publishes nothing.
 */
export async function startLocalRegistry(progress: (message: string) => void = () => undefined): Promise<LocalRegistry> {
  const builds = buildsDir();
  const home = join(builds, contentHash());
  const marker = join(home, 'published.json');
  const publishing = existsSync(marker) ? undefined : await publishLockOrMarker(builds, home, marker);
  if (publishing) {
    // Earlier builds of this checkout are stale: their storage goes (not this build's lock).
    for (const entry of readdirSync(builds)) if (entry !== `${basename(home)}.lock`) rmSync(join(builds, entry), { recursive: true, force: true });
    mkdirSync(join(home, 'storage'), { recursive: true });
  }
  try {
    return await startOn(home, marker, publishing !== undefined, progress);
  } finally {
    publishing?.release();
  }
}

async function startOn(home: string, marker: string, publish: boolean, progress: (message: string) => void): Promise<LocalRegistry> {
  writeFileSync(join(home, 'config.yaml'), CONFIG);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const verdaccio = new ManagedProcess({
    name: 'verdaccio',
    command: process.execPath,
    args: [join(WORKSPACE_ROOT, 'node_modules', 'verdaccio', 'bin', 'verdaccio'), '--config', join(home, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    cwd: home,
    logFile: join(home, `verdaccio-${process.pid}.log`),
  });
  await verdaccio.start();
  try {
    await waitForPing(url, verdaccio);
    let published: string[];
    if (!publish) {
      published = JSON.parse(readFileSync(marker, 'utf8')) as string[];
      progress(`registry ${url} on the storage of an earlier publish (${published.length} packages)`);
    } else {
      const started = Date.now();
      published = publishWorkspace(url, home, await login(url));
      writeFileSync(marker, JSON.stringify(published));
      progress(`published ${published.length} packages to ${url} with pnpm publish in ${Date.now() - started} ms`);
    }
    return { url, scopeLine: `@sas:registry=${url}`, published, metadata: (name) => metadataOf(url, name), stop: () => verdaccio.stop() };
  } catch (e) {
    await verdaccio.stop();
    throw e;
  }
}

/** How long a jest waits for another one's publish of the same build: the publish's own limit, and then some. */
const PUBLISH_WAIT_MS = 360_000;

/**
 * The right to publish this build, or `undefined` once another process has published it. Two
 * publishes of one workspace at once would share pnpm's tarballs in the package folders and one
 * storage, so the lock file (created exclusively, holding its owner's pid) lets one through; the
 * others wait for its marker. A lock whose owner died is taken over.
 */
async function publishLockOrMarker(builds: string, home: string, marker: string): Promise<{ release(): void } | undefined> {
  mkdirSync(builds, { recursive: true });
  const lock = `${home}.lock`;
  const deadline = Date.now() + PUBLISH_WAIT_MS;
  for (;;) {
    if (existsSync(marker)) return undefined;
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return { release: () => rmSync(lock, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = lockOwner(lock);
    if (owner !== undefined && !alive(owner)) rmSync(lock, { force: true });
    if (Date.now() > deadline) {
      throw new Error(`process ${owner ?? '(unknown)'} has held ${lock} for over ${PUBLISH_WAIT_MS / 1000} s without publishing; if no test is running, delete it and run again`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The pid in a lock file; undefined while its owner is still writing it, or once it is gone. */
function lockOwner(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, 'utf8'));
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The environment for npm and node in an application folder: nothing of the workspace's npm run,
 * pnpm or NODE_PATH leaks in. Those keys are present with `undefined`, which child_process drops,
 * so it also works where it is merged over `process.env` (ManagedProcess). The Node running the
 * tests comes first on PATH, so npm, `npx sas` and the services they start run on the version
 * under test (scripts/run.mjs picks it), not on whatever `node` the machine has.
 */
export function applicationEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    env[key] = /^(npm_|pnpm_|NODE_PATH$|INIT_CWD$)/i.test(key) ? undefined : value;
  }
  // npm run puts the workspace's node_modules/.bin first on PATH; an application has none of it.
  // The supported Node binaries are installed under node_modules too (node_modules/node24/bin holds
  // only `node`): dropping every such folder sent the applications to the machine's Node 20.
  const others = (env['PATH'] ?? '').split(':').filter((dir) => !dir.includes('node_modules'));
  env['PATH'] = [dirname(process.execPath), ...others].join(':');
  return { ...env, ...extra };
}

const CONFIG = `# Written by test/support/local-registry.ts: a registry on loopback for the tests only.
storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 1
uplinks: {}
packages:
  '@sas/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    publish: $authenticated
max_body_size: 200mb
web:
  enable: false
log: { type: stdout, format: json, level: warn }
`;

async function waitForPing(url: string, verdaccio: ManagedProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    if (!verdaccio.running) throw new Error(`verdaccio exited before it served:\n${verdaccio.describeLastLines(30)}`);
    if (Date.now() > deadline) throw new Error(`verdaccio did not answer ${url}-/ping within 60 s:\n${verdaccio.describeLastLines(30)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function metadataOf(url: string, name: string): Promise<{ versions: Record<string, { dist: { integrity: string } }> }> {
  // A keep-alive connection the registry closed meanwhile fails once ("other side closed"); the next try opens a new one.
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(`${url}${name.replace('/', '%2f')}`);
      if (!res.ok) throw new Error(`GET ${url}${name}: ${res.status}`);
      return (await res.json()) as { versions: Record<string, { dist: { integrity: string } }> };
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

/** Adds the publisher (or logs it in, on reused storage) as `npm adduser` does; returns its token. */
async function login(url: string): Promise<string> {
  const res = await fetch(`${url}-/user/org.couchdb.user:${PUBLISHER.name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: PUBLISHER.name, password: PUBLISHER.password, type: 'user', roles: [] }),
  });
  const body = (await res.json()) as { token?: string; error?: string };
  if (!res.ok || !body.token) throw new Error(`verdaccio refused the publisher: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** `pnpm -r publish` of every package not marked private; returns `name@version` of each. */
function publishWorkspace(url: string, home: string, token: string): string[] {
  const npmrc = join(home, 'publish.npmrc');
  const hostPath = url.replace(/^http:/, '');
  writeFileSync(npmrc, `@sas:registry=${url}\n${hostPath}:_authToken=${token}\n`);
  const [command, prefix] = pnpm();
  const env = { ...process.env, npm_config_userconfig: npmrc };
  const result = run(command, [...prefix, '-r', 'publish', '--registry', url, '--no-git-checks', '--access', 'public'], WORKSPACE_ROOT, 300_000, env);
  return [...result.stdout.matchAll(/^\+ (@sas\/[a-z-]+@\S+)$/gm)].map((m) => m[1] as string).sort();
}

/** A hash of what publishing would send, so a changed build gets a fresh registry. */
function contentHash(): string {
  const hash = createHash('sha256');
  for (const parent of PACKAGE_PARENTS) {
    for (const name of readdirSync(join(WORKSPACE_ROOT, parent)).sort()) {
      const dir = join(WORKSPACE_ROOT, parent, name);
      for (const entry of ['package.json', 'README.md', 'bin', 'dist']) hashTree(hash, join(dir, entry), `${parent}/${name}/${entry}`);
    }
  }
  return hash.digest('hex').slice(0, 16);
}

function hashTree(hash: ReturnType<typeof createHash>, path: string, label: string): void {
  if (!existsSync(path)) return;
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) hashTree(hash, join(path, entry), `${label}/${entry}`);
    return;
  }
  hash.update(label);
  hash.update(readFileSync(path));
}
