import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchorsOf, documentationPages, linkProblem, linksIn, slugOf } from './markdown-links';

/**
 * The documentation cannot point nowhere: every relative link and anchor of README.md and of every
 * page under docs/ resolves, and docs/index.md leads to every page.
 */

const ROOT = join(__dirname, '..', '..');
const pages = documentationPages(ROOT);

describe('the documentation’s links', () => {
  it('finds README.md and the pages under docs/', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/index.md', join('docs', 'reference', 'configuration.md')]));
  });

  it('all resolve: every relative link names a file that exists, and every anchor a heading of that page', () => {
    const problems = pages.flatMap((page) =>
      linksIn(readFileSync(join(ROOT, page), 'utf8')).flatMap(({ line, target }) => {
        const problem = linkProblem(ROOT, page, target);
        return problem === null ? [] : [`${page}:${line}: ${problem}`];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('lead from docs/index.md to every page under docs/', () => {
    const index = linksIn(readFileSync(join(ROOT, 'docs/index.md'), 'utf8')).map((l) => join('docs', l.target.split('#')[0] ?? ''));
    expect(pages.filter((p) => p.startsWith('docs') && p !== join('docs', 'index.md') && !index.includes(p))).toEqual([]);
  });

  it('README.md stays a front page: at most about 300 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });
});

describe('the link checker', () => {
  let root = '';
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sas-links-'));
    mkdirSync(join(root, 'docs', 'reference'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('slugs headings as GitHub does', () => {
    expect(slugOf('Pausing a remote service')).toBe('pausing-a-remote-service');
    expect(slugOf('MongoDB: real, memory-server, or embedded')).toBe('mongodb-real-memory-server-or-embedded');
    expect(slugOf('The `sas up` path, [end to end](x.md)')).toBe('the-sas-up-path-end-to-end');
    expect([...anchorsOf('# A\n## Tracing\n```sh\n# not a heading\n```\n## Tracing\n<a id="here"></a>\n')]).toEqual(['a', 'tracing', 'tracing-1', 'here']);
  });

  it('finds links but not in code, and reports a missing page, a missing anchor and a link out of the repository', () => {
    writeFileSync(join(root, 'docs', 'a.md'), '# A\n\n## Two words\n');
    const page = 'See [a](a.md), [b](b.md#x) and `[c](c.md)`.\n\n```md\n[d](d.md)\n```\n![pic](../img.png)\n[ref]: reference/\n';
    expect(linksIn(page).map((l) => `${l.line}:${l.target}`)).toEqual(['1:a.md', '1:b.md#x', '6:../img.png', '7:reference/']);
    expect(linkProblem(root, 'docs/index.md', 'a.md#two-words')).toBeNull();
    expect(linkProblem(root, 'docs/index.md', 'reference/')).toBeNull();
    expect(linkProblem(root, 'docs/index.md', 'https://example.com/x#y')).toBeNull();
    expect(linkProblem(root, 'docs/index.md', 'b.md')).toBe('b.md: docs/b.md does not exist');
    expect(linkProblem(root, 'docs/index.md', 'a.md#two')).toBe("a.md#two: docs/a.md has no heading '#two' (it has #a, #two-words)");
    expect(linkProblem(root, 'docs/index.md', '../../etc/passwd')).toBe('../../etc/passwd points outside the repository');
  });
});
