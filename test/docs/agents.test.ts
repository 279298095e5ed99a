import { docBlocks } from './doc-blocks';
import { followPageInEmptyFolder } from './doc-follower';

/**
 * docs/agents.md followed block by block in an empty folder outside the workspace (see
 * DocFollower): its TypeScript is type-checked by the page's own `npx tsc` step, under `strict`,
 * against the packages installed from the local registry; then the agent runs against `sas up`
 * and the page's payments settle as it says.
 */

const blocks = docBlocks('agents.md');
const follower = followPageInEmptyFolder('agents.md');

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
    for (const block of blocks) await follower().follow(block);
    // Ctrl-C, as a reader ends it: the agent's buffered log is written out as it stops.
    await follower().stop();
    // Charged once, although the bank was asked to charge only pay-1 (pay-2 was refused, never retried).
    expect(follower().printed.filter((l) => /"msg":"charged"/.test(l))).toHaveLength(1);
  }, 900_000);
});
