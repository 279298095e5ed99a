/** Severity of a log line from the embedded server. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Where the embedded server writes its log lines. A plain function rather than a logger type,
 * so this package depends on nothing: the CLI writes JSON to stderr, services can pass a pino
 * adapter, tests can collect lines.
 */
export type LogSink = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;
