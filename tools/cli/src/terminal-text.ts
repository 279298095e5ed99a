/**
 * Characters a terminal obeys rather than shows: C0 controls (newline, carriage return, tab, BEL,
 * ESC and the rest), DEL, C1 controls (U+0080–U+009F, e.g. the one-byte CSI U+009B), the line and
 * paragraph separators, and the bidirectional marks, embeddings, overrides and isolates (U+061C,
 * U+200E–U+200F, U+202A–U+202E, U+2066–U+2069) that reorder what follows them on the line.
 */
const OBEYED = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A line the CLI prints, made safe for a terminal: every character a terminal would obey instead of
 * show (see above) is written as a visible escape, `\x1b`, `\x07`, `\u202e`, `\n`. Order ids, reasons,
 * step errors and history entries come from the store or a queue, i.e. from whoever submitted an
 * order or answered as an agent: printed raw, an escape sequence could rewrite the screen or the
 * window title, a right-to-left override could reverse an id, and a newline could print a history
 * line that never happened (`operator:admin: approved by the owner`).
 */
export function terminalText(text: string): string {
  return text.replace(OBEYED, visible);
}

/** Wraps a line printer so that every line it prints goes through {@link terminalText} first. */
export function terminalSafe(print: (line: string) => void): (line: string) => void {
  return (line) => print(terminalText(line));
}
