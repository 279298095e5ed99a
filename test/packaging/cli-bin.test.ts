import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '../support/pack-workspace';

/**
 * `npx sas …` from the repository root: the root package depends on `@sas/server`, so pnpm links its
 * `bin` (the committed shim tools/cli/bin/sas.js, which runs dist/main.js) into node_modules/.bin.
 * A lost dependency, a bin pointing elsewhere or a shim that stops loading the CLI fails here.
 */

const SHIM = join(WORKSPACE_ROOT, 'tools', 'cli', 'bin', 'sas.js');

function sas(bin: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(bin, args, { cwd: WORKSPACE_ROOT, encoding: 'utf8', timeout: 30_000 });
}

describe('the sas command linked at the repository root', () => {
  const linked = join(WORKSPACE_ROOT, 'node_modules', '.bin', 'sas');

  it('prints the usage for --help and exits 0', () => {
    const r = sas(linked, ['--help']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toMatch(/^Usage: sas <command> \[options\]/);
    expect(r.stdout).toContain('workflows check FILE');
  });

  it('prints the usage and exits 2 without a command', () => {
    const r = sas(linked, []);
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/^Usage: sas <command>/);
  });

  it('is the committed shim, executable with a node shebang, so pnpm can link it before the build', () => {
    const pkg = JSON.parse(readFileSync(join(WORKSPACE_ROOT, 'tools', 'cli', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin).toEqual({ sas: './bin/sas.js' });
    expect(readFileSync(SHIM, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(statSync(SHIM).mode & 0o111).toBe(0o111);
  });
});

describe('when the CLI is not built yet', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says to run npm run setup and exits 1', () => {
    dir = mkdtempSync(join(tmpdir(), 'sas-cli-bin-'));
    mkdirSync(join(dir, 'bin'));
    copyFileSync(SHIM, join(dir, 'bin', 'sas.js'));
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'sas.js'), '--help'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `sas: the CLI is not built (${join(dir, 'dist', 'main.js')} is missing). Run \`npm run setup\``,
    );
  });
});
