/**
 * One line a child process wrote, as tests and the launcher see it. Services log with pino (one
 * JSON object per line), so `json` holds the parsed object when the line is one; predicates can
 * then match on fields (`line.json?.msg === 'listening'`) instead of on text.
 */
export interface OutputLine {
  /** Name of the process that wrote it. */
  readonly service: string;
  readonly stream: 'stdout' | 'stderr';
  /** The raw line without its line ending. */
  readonly text: string;
  /** The parsed JSON object when the line is one, else `undefined`. */
  readonly json: Readonly<Record<string, unknown>> | undefined;
  /** Which start of the process wrote it: 1 for the first `start()`, 2 after one restart, ... */
  readonly run: number;
}

/**
 * Builds an {@link OutputLine}; its text is parsed as a JSON object the first time `json` is read,
 * not before: most lines are only written to the log file, and a benchmark's process, which reads
 * every line the services write, would otherwise charge their parsing to the system it measures.
 */
export function toOutputLine(
  service: string,
  stream: OutputLine['stream'],
  text: string,
  run: number,
): OutputLine {
  let parsed: Record<string, unknown> | undefined | null = null;
  return {
    service,
    stream,
    text,
    get json() {
      if (parsed === null) parsed = parseJsonObject(text);
      return parsed;
    },
    run,
  };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Formats lines for an error message: one per line, prefixed with the stream when it is stderr. */
export function formatLines(lines: readonly OutputLine[]): string {
  if (lines.length === 0) return '  (no output)';
  return lines.map((line) => `  ${line.stream === 'stderr' ? '[stderr] ' : ''}${line.text}`).join('\n');
}
