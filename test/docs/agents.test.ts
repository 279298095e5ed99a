import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRegistry, startLocalRegistry } from '../support/local-registry';
import { docBlocks } from './doc-blocks';
import { DocFollower } from './doc-follower';

/**
 * docs/agents.md followed block by block in an empty folder outside the workspace (see
 * DocFollower): its TypeScript is type-checked by the page's own `npx tsc` step, under `strict`,
 * against the packages installed from the local registry; then the agent runs against `sas up`
 * and the page's payments settle as it says.
 */

const blocks = docBlocks('agents.md');
let registry: LocalRegistry;
let dir: string;
let reader: DocFollower;

beforeAll(async () => {
  registry = await startLocalRegistry();
  dir = mkdtempSync(join(tmpdir(), 'sas-agents-doc-'));
  writeFileSync(join(dir, '.npmrc'), `${registry.scopeLine}\n`);
  reader = new DocFollower('agents.md', dir);
}, 600_000);

afterAll(async () => {
  await reader?.stop();
  await registry?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('docs/agents.md, followed block by block', () => {
  it('type-checks every TypeScript block with the page\'s own tsc step', () => {
    const ts = blocks.filter((b) => b.lang === 'ts');
    expect(ts.length).toBeGreaterThan(0);
    // Each one is written to a file the tsconfig includes (*.ts), so `npx tsc` checks it.
    expect(ts.filter((b) => typeof b.attrs['file'] !== 'string' || !String(b.attrs['file']).endsWith('.ts'))).toEqual([]);
    const tscAfterAll = blocks.findIndex((b) => b.lang === 'sh' && /^npx tsc\s*$/m.test(b.code));
    expect(tscAfterAll).toBeGreaterThan(Math.max(...ts.map((b) => blocks.indexOf(b))));
  });

  it('runs every block as written: the accepted payment Processed, the refused one Compensated', async () => {
    for (const block of blocks) await reader.follow(block);
    // Ctrl-C, as a reader ends it: the agent's buffered log is written out as it stops.
    await reader.stop();
    // Charged once, although the bank was asked to charge only pay-1 (pay-2 was refused, never retried).
    expect(reader.printed.filter((l) => /"msg":"charged"/.test(l))).toHaveLength(1);
  }, 900_000);
});
