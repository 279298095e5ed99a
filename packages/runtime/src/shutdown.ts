import type { Logger } from 'pino';
import type { Closable } from './close-all';
import { ProcessShutdown } from './process-shutdown';

/**
 * Closes every component on SIGTERM/SIGINT with `Promise.allSettled`, logs each step, and exits
 * (0 when all closed, 1 otherwise). A second signal exits at once. For a process that has
 * started everything already; one that installs its shutdown before starting uses {@link ProcessShutdown}.
 */
export function installShutdown(logger: Logger, closables: readonly Closable[], timeoutMs = 10_000): void {
  const shutdown = new ProcessShutdown(() => logger, timeoutMs);
  shutdown.hold(logger, closables);
  shutdown.started();
}
