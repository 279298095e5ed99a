import type { Logger } from 'pino';

const noop = (): void => undefined;

/**
 * A logger that writes nothing and costs nothing: the components log on every hop and build child
 * loggers per message, which a silent pino still pays for. The trace says what happened instead.
 */
export function silentLogger(): Logger {
  const logger: Record<string, unknown> = { level: 'silent', isLevelEnabled: () => false };
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) logger[level] = noop;
  logger['child'] = () => logger;
  return logger as unknown as Logger;
}
