// @ts-check
'use strict';

const { execFileSync } = require('node:child_process');
const { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { ManagedProcess, freePort } = require('@sas/stack');

/**
 * The newest PostgreSQL server binaries Debian's packages installed (`/usr/lib/postgresql/<n>/bin`).
 * Throws, saying what to install, when there are none.
 */
function postgresBinDir() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root}/<version>/bin (Debian: apt-get install postgresql)`);
  return join(root, versions[0] ?? '', 'bin');
}

/**
 * A private PostgreSQL for one benchmark run: `initdb` into a temporary directory and `postgres`
 * on a free loopback port, never the machine's own cluster. PostgreSQL refuses to run as root, so
 * as root both run as the `postgres` user (through `setpriv`, which execs, so the pid is the
 * postmaster's). Its settings are PostgreSQL's defaults (fsync and synchronous_commit on).
 * @param {{ push: (name: string, close: () => Promise<unknown>) => unknown }} cleanup
 * @returns {Promise<{ url: string, pid: () => number | undefined, version: string }>}
 */
async function startPrivatePostgres(cleanup) {
  const bin = postgresBinDir();
  const dir = mkdtempSync(join(os.tmpdir(), 'sas-bench-pg-'));
  cleanup.push('the private PostgreSQL\'s directory', async () => rmSync(dir, { recursive: true, force: true }));
  /** @type {string[]} */
  let asUser = [];
  if (process.getuid?.() === 0) {
    /** @param {string} flag */
    const id = (flag) => {
      try {
        return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
      } catch {
        throw new Error('PostgreSQL refuses to run as root and there is no `postgres` user to run it as (Debian\'s postgresql package creates one; or run the benchmark as another user)');
      }
    };
    const uid = id('-u');
    const gid = id('-g');
    chownSync(dir, uid, gid);
    asUser = ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--'];
  }
  const data = join(dir, 'data');
  const run = (/** @type {string[]} */ argv) => {
    const [command, ...args] = [...asUser, ...argv];
    return execFileSync(command ?? '', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  };
  // --no-sync only skips initdb's final flush of the fresh cluster; the server runs with fsync on.
  run([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  const [command, ...prefix] = [...asUser, join(bin, 'postgres')];
  const server = new ManagedProcess({
    name: 'postgres',
    command: command ?? '',
    args: [...prefix, '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'],
    cwd: dir,
    maxLines: 300,
  });
  cleanup.push('the private PostgreSQL', () => server.stop(10_000));
  await server.start();
  await server.waitForLine((l) => l.text.includes('ready to accept connections'), 60_000, 'PostgreSQL to accept connections');
  const version = run([join(bin, 'postgres'), '--version']).trim();
  return { url: `postgres://postgres@127.0.0.1:${port}/sas_bench_dbos`, pid: () => server.pid, version };
}

module.exports = { startPrivatePostgres };
