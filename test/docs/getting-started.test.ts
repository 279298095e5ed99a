import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess } from '@sas/stack';
import { type LocalRegistry, applicationEnv, startLocalRegistry } from '../support/local-registry';
import { run } from '../support/pack-workspace';
import { type DocBlock, docBlocks, sampleLinePattern } from './doc-blocks';

/**
 * docs/getting-started.md as a newcomer follows it, block by block, in an empty folder outside the
 * workspace: files are written, shell blocks run with bash (background ones started and waited
 * for), sample output checked against what really printed. The one difference from a newcomer's
 * machine: the folder's `.npmrc` takes the `@sas` scope from the local registry the tests publish
 * to (test/support/local-registry.ts) instead of npmjs.
 */

const blocks = docBlocks('getting-started.md');
let registry: LocalRegistry;
let dir: string;
let env: NodeJS.ProcessEnv = {};
const background: ManagedProcess[] = [];
/** Everything the page's commands printed so far, for its samples. */
const printed: string[] = [];

beforeAll(async () => {
  registry = await startLocalRegistry();
  dir = mkdtempSync(join(tmpdir(), 'sas-getting-started-'));
  writeFileSync(join(dir, '.npmrc'), `${registry.scopeLine}\n`);
}, 600_000);

afterAll(async () => {
  // Ctrl-C, as the page says, for every background command, newest first (the agents, then sas up).
  for (const proc of [...background].reverse()) await proc.kill('SIGINT').catch(() => undefined);
  for (const proc of background) await proc.stop(20_000);
  await registry?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

function describeBlock(b: DocBlock): string {
  return `docs/getting-started.md:${b.line} (${b.lang} ${Object.keys(b.attrs).join(' ')})`;
}

async function follow(block: DocBlock): Promise<void> {
  const where = describeBlock(block);
  if (typeof block.attrs['file'] === 'string') {
    writeFileSync(join(dir, block.attrs['file']), block.code);
    return;
  }
  if (block.lang === 'text') {
    const missing = block.code.split('\n').filter((l) => l.trim() !== '' && !printed.some((p) => sampleLinePattern(l).test(p)));
    if (missing.length > 0) throw new Error(`${where}: sample lines nothing printed:\n${missing.join('\n')}\n--- printed:\n${printed.slice(-40).join('\n')}`);
    return;
  }
  if (block.lang !== 'sh') throw new Error(`${where}: a block the doc test does not know how to run; give it file=NAME or make it sh/text`);
  if (block.attrs['env-from-sas-up']) {
    // The page shows an example line; the reader pastes the one sas up printed. Same variables, real values.
    const line = printed.find((l) => l.trim().startsWith('export REDIS_URL='));
    if (!line) throw new Error(`${where}: sas up printed no export line`);
    const names = (text: string): string[] => [...text.matchAll(/([A-Z_]+)=/g)].map((m) => m[1] as string);
    expect(names(block.code)).toEqual(names(line));
    env = Object.fromEntries([...line.matchAll(/([A-Z_]+)='?([^' ]+)'?/g)].map((m) => [m[1] as string, m[2] as string]));
    return;
  }
  if (block.attrs['background']) {
    const until = String(block.attrs['until']);
    const proc = new ManagedProcess({ name: `block-${block.line}`, command: 'bash', args: ['-c', block.code], cwd: dir, env: applicationEnv(env), logFile: join(dir, `block-${block.line}.log`), ownProcessGroup: true });
    background.push(proc);
    await proc.start();
    await proc.waitForLine((l) => l.text.includes(until), 180_000, `'${until}' (${where})`);
    // What it printed up to now and from now on counts for the samples (a waiter sees the lines so far, then each new one).
    proc.waitForLine((l) => (printed.push(l.text), false), 3_600_000, 'never').catch(() => undefined);
    return;
  }
  const result = run('bash', ['-euo', 'pipefail', '-c', block.code], dir, 300_000, applicationEnv(env));
  printed.push(...result.stdout.split('\n'));
  if (typeof block.attrs['expect'] === 'string') expect(result.stdout).toContain(block.attrs['expect']);
}

describe('docs/getting-started.md, followed block by block', () => {
  it('has blocks to follow', () => {
    expect(blocks.length).toBeGreaterThan(8);
  });

  it('runs every block as written, ending with a Compensated sign-up', async () => {
    for (const block of blocks) await follow(block);
    // The page's claims about what happened, checked against the real output: the live line (read
    // every second) counts both, and the agents' log shows the account created then deleted.
    const deadline = Date.now() + 15_000;
    while (!printed.some((l) => /processes: 2 · Processed 1 · Compensated 1/.test(l)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(printed).toEqual(expect.arrayContaining([expect.stringMatching(/processes: 2 · Processed 1 · Compensated 1/)]));
    const accountLog = printed.filter((l) => /"msg":"account (created|deleted)"/.test(l)).map((l) => String((JSON.parse(l) as { msg: string }).msg));
    expect([...accountLog].sort()).toEqual(['account created', 'account created', 'account deleted']);
  }, 900_000);
});
