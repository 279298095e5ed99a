/**
 * A YAML reader for the subset our deployment files use, so the static checks can read
 * docker-compose.yml and the Kubernetes manifests without a YAML dependency in the workspace.
 *
 * Supported: block mappings and sequences (including `- key: value` items and sequences at their
 * key's indentation), plain / single- / double-quoted one-line scalars, flow sequences of scalars
 * (`[a, "b c"]`), `{}`, anchors, aliases, merge keys (`<<: *anchor`), `|` and `>` block scalars
 * (one-line header, clip or strip chomping), comments and `---` document separators.
 * Anything else (flow mappings, multi-line plain or quoted scalars, tags, tabs) throws a
 * {@link YamlSubsetError} naming the line, so a file that drifts out of the subset fails the
 * checks loudly instead of being misread. Plain `yes`/`no`/`on`/`off` read as booleans, as
 * Kubernetes' YAML 1.1 parser reads them, so an unquoted `value: yes` shows up as not a string.
 */
export type YamlValue = string | number | boolean | null | YamlValue[] | YamlMap;

/** A YAML mapping; keys keep file order. */
export interface YamlMap {
  [key: string]: YamlValue;
}

/** The file uses YAML this reader does not understand, or is not valid YAML. */
export class YamlSubsetError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'YamlSubsetError';
  }
}

interface Line {
  /** 1-based line number in the source, for messages. */
  no: number;
  indent: number;
  /** Content without indentation and comments. */
  text: string;
  /** The source line as written (block scalars keep `#`). */
  raw: string;
}

/** Parses every `---`-separated document of `source`. */
export function parseYamlDocuments(source: string): YamlValue[] {
  const documents: Line[][] = [[]];
  source.split(/\r?\n/).forEach((raw, i) => {
    if (/^---\s*(#.*)?$/.test(raw)) {
      documents.push([]);
      return;
    }
    if (raw.startsWith('%')) throw new YamlSubsetError('directives are not supported', i + 1);
    const indentText = /^[ \t]*/.exec(raw)?.[0] ?? '';
    if (indentText.includes('\t')) throw new YamlSubsetError('tab in indentation', i + 1);
    const text = stripComment(raw.slice(indentText.length)).trimEnd();
    documents[documents.length - 1]?.push({ no: i + 1, indent: indentText.length, text, raw });
  });
  return documents
    .filter((lines) => lines.some((l) => l.text !== ''))
    .map((lines) => new Reader(lines).document());
}

/** Parses a single-document file. */
export function parseYaml(source: string): YamlValue {
  const documents = parseYamlDocuments(source);
  if (documents.length !== 1) throw new YamlSubsetError(`expected one document, found ${documents.length}`, 1);
  return documents[0] ?? null;
}

/** True for a mapping (not a sequence, scalar or null). */
export function isYamlMap(value: YamlValue | undefined): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Reader {
  private pos = 0;
  private readonly anchors = new Map<string, YamlValue>();

  constructor(private readonly lines: Line[]) {}

  /** The next line that carries structure; blank and comment-only lines are skipped. */
  private peek(): Line | undefined {
    while (this.lines[this.pos]?.text === '') this.pos++;
    return this.lines[this.pos];
  }

  document(): YamlValue {
    const first = this.peek();
    if (!first) return null;
    const value = this.block(first.indent);
    const extra = this.peek();
    if (extra) throw new YamlSubsetError(`unexpected indentation of '${extra.text}'`, extra.no);
    return value;
  }

  private block(indent: number): YamlValue {
    const line = this.peek();
    if (!line) return null;
    return isSequenceItem(line.text) ? this.sequence(indent) : this.mapping(indent);
  }

  private mapping(indent: number): YamlMap {
    const map: YamlMap = {};
    const merges: YamlValue[] = [];
    for (let line = this.peek(); line && line.indent === indent && !isSequenceItem(line.text); line = this.peek()) {
      const entry = splitKey(line.text);
      if (!entry) throw new YamlSubsetError(`expected 'key: value', got '${line.text}'`, line.no);
      this.pos++;
      const value = this.valueAfter(entry.rest, indent, line);
      if (entry.key === '<<') merges.push(value);
      else if (Object.prototype.hasOwnProperty.call(map, entry.key)) throw new YamlSubsetError(`duplicate key '${entry.key}'`, line.no);
      else map[entry.key] = value;
    }
    // Explicit keys win over merged ones, whatever their order (YAML merge key semantics).
    for (const merged of merges.flatMap((m) => (Array.isArray(m) ? m : [m]))) {
      if (!isYamlMap(merged)) throw new YamlSubsetError('<< must merge a mapping', this.lines[this.pos - 1]?.no ?? 0);
      for (const [k, v] of Object.entries(merged)) if (!Object.prototype.hasOwnProperty.call(map, k)) map[k] = v;
    }
    return map;
  }

  private sequence(indent: number): YamlValue[] {
    const items: YamlValue[] = [];
    for (let line = this.peek(); line && line.indent === indent && isSequenceItem(line.text); line = this.peek()) {
      const rest = line.text.slice(1).trimStart();
      const contentIndent = indent + line.text.length - rest.length;
      if (rest !== '' && !rest.startsWith('&') && (splitKey(rest) || isSequenceItem(rest))) {
        // `- key: value` opens a mapping whose keys sit at the column of `key`.
        this.lines[this.pos] = { ...line, indent: contentIndent, text: rest };
        items.push(this.block(contentIndent));
      } else {
        this.pos++;
        items.push(this.valueAfter(rest, indent, line));
      }
    }
    return items;
  }

  /** The value of a key or sequence item whose own text after `:`/`-` is `rest`. */
  private valueAfter(rest: string, indent: number, line: Line): YamlValue {
    let text = rest;
    let anchor: string | undefined;
    const anchored = /^&([^\s[\]{},]+)\s*(.*)$/.exec(text);
    if (anchored) {
      anchor = anchored[1];
      text = anchored[2] ?? '';
    }
    let value: YamlValue;
    if (text === '') {
      const next = this.peek();
      const nested = next && (next.indent > indent || (next.indent === indent && isSequenceItem(next.text)));
      value = nested ? this.block(next.indent) : null;
    } else if (/^[|>][-+]?$/.test(text)) {
      value = this.blockScalar(text, indent);
    } else {
      value = this.inline(text, line);
    }
    if (anchor !== undefined) this.anchors.set(anchor, value);
    return value;
  }

  private blockScalar(header: string, indent: number): string {
    // Raw lines, so `#` inside the text is kept; blank lines belong to the block until it ends.
    const body: Line[] = [];
    for (let line = this.lines[this.pos]; line && (line.raw.trim() === '' || line.indent > indent); line = this.lines[this.pos]) {
      body.push(line);
      this.pos++;
    }
    while (body.length > 0 && body[body.length - 1]?.raw.trim() === '') body.pop();
    const content = body.filter((l) => l.raw.trim() !== '');
    if (content.length === 0) return '';
    const margin = Math.min(...content.map((l) => l.indent));
    const texts = body.map((l) => l.raw.slice(margin).trimEnd());
    const joined = header.startsWith('|') ? texts.join('\n') : texts.join(' ');
    return header.endsWith('-') ? joined : `${joined}\n`;
  }

  private inline(text: string, line: Line): YamlValue {
    if (text.startsWith('*')) {
      const name = text.slice(1);
      if (!this.anchors.has(name)) throw new YamlSubsetError(`unknown alias *${name}`, line.no);
      return this.anchors.get(name) ?? null;
    }
    if (text.startsWith('[')) return flowSequence(text, line);
    if (text === '{}') return {};
    if (text.startsWith('{')) throw new YamlSubsetError('flow mappings are not supported; use block style', line.no);
    if (text.startsWith('!')) throw new YamlSubsetError('tags are not supported', line.no);
    const next = this.peek();
    if (next && next.indent > line.indent && !text.startsWith('"') && !text.startsWith("'")) {
      throw new YamlSubsetError(`multi-line plain scalars are not supported (continues at line ${next.no})`, line.no);
    }
    return scalar(text, line);
  }
}

function isSequenceItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

/** `key: rest` → parts; undefined when `text` is not a mapping entry. */
function splitKey(text: string): { key: string; rest: string } | undefined {
  const quoted = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*:(?:\s+(.*))?$/.exec(text);
  if (quoted) return { key: String(scalar(quoted[1] ?? '', { no: 0 })), rest: quoted[2] ?? '' };
  if (/^["'[{]/.test(text)) return undefined;
  const plain = /^([^\s#][^#]*?)\s*:(?:\s+(.*))?$/.exec(text);
  if (!plain || /:\s/.test(plain[1] ?? '')) return undefined;
  return { key: plain[1] ?? '', rest: plain[2] ?? '' };
}

function flowSequence(text: string, line: Pick<Line, 'no'>): YamlValue[] {
  if (!text.endsWith(']')) throw new YamlSubsetError('a flow sequence must close on its own line', line.no);
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const items: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{') throw new YamlSubsetError('flow mappings are not supported; use block style', line.no);
    else if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === ',' && depth === 0) {
      items.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  items.push(inner.slice(start).trim());
  return items.map((item) => (item.startsWith('[') ? flowSequence(item, line) : scalar(item, line)));
}

function scalar(text: string, line: Pick<Line, 'no'>): YamlValue {
  if (text.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) throw new YamlSubsetError(`unterminated or multi-line string ${text}`, line.no);
    try {
      return JSON.parse(text) as string;
    } catch {
      throw new YamlSubsetError(`escape not supported in ${text}`, line.no);
    }
  }
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new YamlSubsetError(`unterminated or multi-line string ${text}`, line.no);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (/^(null|Null|NULL|~)$/.test(text)) return null;
  if (/^(true|True|TRUE|yes|Yes|YES|on|On|ON)$/.test(text)) return true;
  if (/^(false|False|FALSE|no|No|NO|off|Off|OFF)$/.test(text)) return false;
  if (/^[-+]?\d+$/.test(text)) return Number(text);
  if (/^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
}

/** Removes a `#` comment: one at the start, or after a space and outside a quoted scalar. */
function stripComment(text: string): string {
  let quote: string | undefined;
  let previous = ' ';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === "'" && quote === "'" && text[i + 1] === "'") i++;
      else if (c === quote) quote = undefined;
    } else if ((c === '"' || c === "'") && /[\s:\-[,]/.test(previous)) {
      quote = c;
    } else if (c === '#' && /\s/.test(previous)) {
      return text.slice(0, i);
    }
    previous = c;
  }
  return text;
}
