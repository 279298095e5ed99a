import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRegistry, startLocalRegistry } from '../support/local-registry';
import { docBlocks } from './doc-blocks';
import { DocFollower } from './doc-follower';

/**
 * docs/getting-started.md as a newcomer follows it, block by block, in an empty folder outside the
 * workspace (see DocFollower). The one difference from a newcomer's machine: the folder's `.npmrc`
 * takes the `@sas` scope from the local registry the tests publish to (test/support/local-registry.ts)
 * instead of npmjs.
 */

const blocks = docBlocks('getting-started.md');
let registry: LocalRegistry;
let dir: string;
let reader: DocFollower;

beforeAll(async () => {
  registry = await startLocalRegistry();
  dir = mkdtempSync(join(tmpdir(), 'sas-getting-started-'));
  writeFileSync(join(dir, '.npmrc'), `${registry.scopeLine}\n`);
  reader = new DocFollower('getting-started.md', dir);
}, 600_000);

afterAll(async () => {
  await reader?.stop();
  await registry?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('docs/getting-started.md, followed block by block', () => {
  it('has blocks to follow', () => {
    expect(blocks.length).toBeGreaterThan(8);
  });

  it('runs every block as written, ending with a Compensated sign-up', async () => {
    for (const block of blocks) await reader.follow(block);
    // The page's claims about what happened, checked against the real output: the live line (read
    // every second) counts both, and the agents' log shows two accounts created and one deleted.
    const deadline = Date.now() + 15_000;
    while (!reader.printed.some((l) => /processes: 2 · Processed 1 · Compensated 1/.test(l)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(reader.printed).toEqual(expect.arrayContaining([expect.stringMatching(/processes: 2 · Processed 1 · Compensated 1/)]));
    // Ctrl-C, as the page ends: the agents' buffered log is written out as they stop.
    await reader.stop();
    const accountLog = reader.printed.filter((l) => /"msg":"account (created|deleted)"/.test(l)).map((l) => String((JSON.parse(l) as { msg: string }).msg));
    expect([...accountLog].sort()).toEqual(['account created', 'account created', 'account deleted']);
  }, 900_000);
});
