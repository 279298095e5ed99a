/**
 * CEL's error messages point at the place with two lines: the source line (`>    1 | payload.a >`)
 * and a caret under the column (`             ^`). Folded into one line, or trimmed, the caret
 * points at nothing. This keeps the place:
 * - `lines`: the message, then the source line and the caret under its column, each indented the
 *   same, for a report printed as lines (`sas workflows check`, a service refusing a workflow);
 * - `one-line`: the message and `at line L, column C`, for a reason stored in one line (history).
 *
 * Pure. A message without CEL's pointer is folded into one line either way.
 */
export function celMessage(message: string, layout: 'lines' | 'one-line'): string {
  const lines = message.split('\n');
  const sourceAt = lines.findIndex((l) => SOURCE.test(l));
  const source = sourceAt < 0 ? undefined : SOURCE.exec(lines[sourceAt] ?? '');
  const caret = lines[sourceAt + 1];
  const head = fold(sourceAt < 0 ? lines : lines.slice(0, sourceAt));
  if (!source || caret === undefined || !/^\s*\^/.test(caret)) return fold(lines);
  const [, prefix = '', lineNumber = '', code = ''] = source;
  // The caret's column in CEL's rendering, less the width of its `>    1 | ` prefix.
  const column = caret.indexOf('^') - prefix.length;
  if (column < 0) return fold(lines);
  if (layout === 'one-line') return `${head} (at line ${lineNumber}, column ${column + 1})`;
  return `${head}\n    ${code}\n    ${' '.repeat(column)}^`;
}

// `>    1 | code`: the prefix (up to and including `| `), the line number, and the code.
const SOURCE = /^(>\s+(\d+) \| )(.*)$/;

function fold(lines: readonly string[]): string {
  return lines
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(' ');
}
