import { pino, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  service: string;
  instanceId: string;
  /** @default 'info' */
  level?: string;
}

/** JSON logs to stdout, one line per event, with `service` and `instance` on every line. */
export function createLogger(options: LoggerOptions): Logger {
  return pino({
    level: options.level ?? 'info',
    base: { service: options.service, instance: options.instanceId },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
