import { waitFor } from '@sas/testkit';
import { docBlocks } from './doc-blocks';
import { followPageInEmptyFolder } from './doc-follower';

/**
 * docs/getting-started.md as a newcomer follows it, block by block, in an empty folder outside the
 * workspace (see DocFollower). The one difference from a newcomer's machine: the folder's `.npmrc`
 * takes the `@sas` scope from the local registry the tests publish to (test/support/local-registry.ts)
 * instead of npmjs.
 */

const blocks = docBlocks('getting-started.md');
const follower = followPageInEmptyFolder('getting-started.md');

describe('docs/getting-started.md, followed block by block', () => {
  it('has blocks to follow', () => {
    expect(blocks.length).toBeGreaterThan(8);
  });

  it('runs every block as written, ending with a Compensated sign-up', async () => {
    for (const block of blocks) await follower().follow(block);
    // The page's claims about what happened, checked against the real output: the live line (read
    // every second) counts both, and the agents' log shows two accounts created and one deleted.
    await waitFor(() => follower().printed.some((l) => /processes: 2 · Processed 1 · Compensated 1/.test(l)), {
      timeoutMs: 15_000,
      description: "sas up's live line counting one Processed and one Compensated order",
    });
    // Ctrl-C, as the page ends: the agents' buffered log is written out as they stop.
    await follower().stop();
    const accountLog = follower().printed.filter((l) => /"msg":"account (created|deleted)"/.test(l)).map((l) => String((JSON.parse(l) as { msg: string }).msg));
    expect([...accountLog].sort()).toEqual(['account created', 'account created', 'account deleted']);
  }, 900_000);
});
