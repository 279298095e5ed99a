import { pino, type Logger } from 'pino';

/** One parsed log line. */
export type LogLine = Record<string, unknown> & { msg?: string };

/** A pino logger that keeps its lines in memory, so tests can assert what was logged. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: 'debug' },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
  return { logger, lines };
}
