import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A link found in a Markdown page. */
export interface MarkdownLink {
  /** 1-based line of the page. */
  line: number;
  target: string;
}

/**
 * The lines of `markdown` outside fenced code blocks (```` ``` ```` or `~~~`), each with its number,
 * and with inline code spans blanked, so that neither a `# comment` in a shell block nor a
 * `[x](y)` inside backticks counts as a heading or a link.
 */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, i) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(text);
    if (fence !== null) {
      if (opener && opener[1]?.[0] === fence[0] && (opener[1]?.length ?? 0) >= fence.length && text.trim() === opener[1]) fence = null;
      return;
    }
    if (opener) {
      fence = opener[1] ?? '```';
      return;
    }
    lines.push({ line: i + 1, text: text.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => ' '.repeat(span.length)) });
  });
  return lines;
}

/** Every inline link or image target, and every reference definition, of `markdown`. */
export function linksIn(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  for (const { line, text } of proseLines(markdown)) {
    for (const m of text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: m[1] ?? '' });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+["'(].*)?$/.exec(text);
    if (definition) links.push({ line, target: definition[1] ?? '' });
  }
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/\*+/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors a page offers: its headings' slugs (repeats numbered as GitHub does) and explicit `id`s and `name`s. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) {
      const slug = slugOf(heading[1] ?? '');
      const n = counts.get(slug) ?? 0;
      counts.set(slug, n + 1);
      anchors.add(n === 0 ? slug : `${slug}-${n}`);
    }
    for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1] ?? '');
  }
  return anchors;
}

/** What is wrong with one relative link of the page `from` (inside `root`), or null when it resolves. */
export function linkProblem(root: string, from: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null;
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash >= 0 ? target.slice(0, hash) : target);
  const anchor = hash >= 0 ? decodeURIComponent(target.slice(hash + 1)) : null;
  const file = path === '' ? resolve(root, from) : path.startsWith('/') ? join(root, path) : resolve(root, dirname(from), path);
  if (relative(root, file).startsWith('..')) return `${target} points outside the repository`;
  if (!existsSync(file)) return `${target}: ${relative(root, file)} does not exist`;
  if (anchor === null || anchor === '') return null;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `${target}: an anchor on something that is not a Markdown page`;
  const anchors = anchorsOf(readFileSync(file, 'utf8'));
  return anchors.has(anchor) ? null : `${target}: ${relative(root, file)} has no heading '#${anchor}' (it has ${[...anchors].map((a) => `#${a}`).join(', ')})`;
}

/** README.md and every Markdown page under docs/, relative to `root`. */
export function documentationPages(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir))
      .sort()
      .flatMap((e) => (statSync(join(root, dir, e)).isDirectory() ? walk(join(dir, e)) : e.endsWith('.md') ? [join(dir, e)] : []));
  return ['README.md', ...walk('docs')];
}
