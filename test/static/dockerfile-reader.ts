/**
 * Reads a Dockerfile into stages and instructions, and evaluates `.dockerignore` patterns, so the
 * static checks can compare deploy/Dockerfile with the workspace without a Docker engine.
 * Covers what our Dockerfile uses: `\` continuations, comments, parser directives, `FROM … AS`.
 */

/** One instruction, continuation lines joined. */
export interface DockerInstruction {
  /** Upper-case keyword: FROM, RUN, COPY, … */
  keyword: string;
  /** Everything after the keyword, whitespace-collapsed. */
  args: string;
  /** 1-based line where it starts. */
  line: number;
}

/** A build stage: its `FROM` and what follows until the next `FROM`. */
export interface DockerStage {
  /** The `AS` name, or the stage index as text. */
  name: string;
  /** The image or stage it starts from, as written (ARGs not expanded). */
  from: string;
  instructions: DockerInstruction[];
}

/** Splits a Dockerfile into stages; instructions before the first FROM (global ARGs) go to `preamble`. */
export function readDockerfile(source: string): { preamble: DockerInstruction[]; stages: DockerStage[] } {
  const preamble: DockerInstruction[] = [];
  const stages: DockerStage[] = [];
  let pending = '';
  let startLine = 0;
  source.split(/\r?\n/).forEach((raw, i) => {
    const text = raw.trim();
    if (pending === '' && (text === '' || text.startsWith('#'))) return;
    if (pending !== '' && text.startsWith('#')) return; // comments inside a continued instruction
    if (pending === '') startLine = i + 1;
    const continued = text.endsWith('\\');
    pending += ` ${continued ? text.slice(0, -1) : text}`;
    if (continued) return;
    const [keyword = '', ...rest] = pending.trim().split(/\s+/);
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' '), line: startLine };
    pending = '';
    if (instruction.keyword === 'FROM') {
      const match = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      stages.push({ name: match?.[2] ?? String(stages.length), from: match?.[1] ?? '', instructions: [] });
    } else if (stages.length === 0) {
      preamble.push(instruction);
    } else {
      stages[stages.length - 1]?.instructions.push(instruction);
    }
  });
  if (pending !== '') throw new Error(`Dockerfile ends inside a continued instruction starting at line ${startLine}`);
  return { preamble, stages };
}

/** Sources of a `COPY`/`ADD` from the build context (undefined for `--from=` copies), and its destination. */
export function copySources(instruction: DockerInstruction): { sources: string[]; destination: string } | undefined {
  if (instruction.keyword !== 'COPY' && instruction.keyword !== 'ADD') return undefined;
  const words = instruction.args.split(' ');
  if (words.some((w) => w.startsWith('--from='))) return undefined;
  const paths = words.filter((w) => !w.startsWith('--'));
  const destination = paths.pop();
  if (destination === undefined || paths.length === 0) throw new Error(`line ${instruction.line}: COPY without source or destination`);
  return { sources: paths, destination };
}

/**
 * A predicate telling whether a context path (`a/b/c`, no leading `./`) is excluded by
 * `.dockerignore` lines. Supports `*`, `**`, `?`, `!` re-includes and directory prefixes, which is
 * what Docker's own matcher does for the patterns we write.
 */
export function dockerIgnoreMatcher(source: string): (path: string) => boolean {
  const rules = source
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const include = l.startsWith('!');
      const pattern = (include ? l.slice(1) : l).replace(/^\.?\//, '').replace(/\/$/, '');
      return { include, regex: globToRegex(pattern) };
    });
  return (path) => {
    const parts = path.split('/');
    // A path is excluded when it or any parent directory matches; the last matching rule wins.
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) {
      if (candidates.some((c) => rule.regex.test(c))) excluded = !rule.include;
    }
    return excluded;
  };
}

function globToRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}
