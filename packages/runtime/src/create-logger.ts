import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  service: string;
  instanceId: string;
  /** @default 'info' */
  level?: string;
  /** Where the lines go (a test keeps them to read). @default stdout */
  destination?: DestinationStream;
}

/** JSON logs to stdout, one line per event, with `service` and `instance` on every line. */
export function createLogger(options: LoggerOptions): Logger {
  const settings = {
    level: options.level ?? 'info',
    base: { service: options.service, instance: options.instanceId },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
