import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '../support/pack-workspace';

/** One fenced code block of a docs page, with the attributes after its language (```sh background until="x"). */
export interface DocBlock {
  lang: string;
  attrs: Record<string, string | true>;
  code: string;
  /** 1-based line of the opening fence, for failure messages. */
  line: number;
}

/**
 * The fenced code blocks of `docs/<page>`, in order. Attributes after the language are hidden by
 * Markdown renderers and tell the doc tests what to do with a block: `file=NAME` (write it),
 * `background until="TEXT"` (start it and wait for TEXT), `expect="TEXT"` (run it; TEXT in its output).
 */
export function docBlocks(page: string): DocBlock[] {
  const text = readFileSync(join(WORKSPACE_ROOT, 'docs', page), 'utf8');
  const blocks: DocBlock[] = [];
  const fence = /^```(\S*)([^\n]*)\n([\s\S]*?)^```\s*$/gm;
  for (const match of text.matchAll(fence)) {
    const attrs: Record<string, string | true> = {};
    for (const a of (match[2] ?? '').matchAll(/([a-z-]+)(?:=(?:"([^"]*)"|(\S+)))?/g)) attrs[a[1] as string] = a[2] ?? a[3] ?? true;
    blocks.push({ lang: match[1] ?? '', attrs, code: match[3] ?? '', line: text.slice(0, match.index).split('\n').length });
  }
  return blocks;
}

/**
 * A regular expression for a line of sample output in a page: numbers (ports, counts) and `...`
 * (a token, an elided part) stand for any value; the rest must be there as written.
 */
export function sampleLinePattern(line: string): RegExp {
  const escaped = line.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(escaped.replace(/\\\.\\\.\\\./g, '\\S+').replace(/\d+/g, '\\d+'));
}
