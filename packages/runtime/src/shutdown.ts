import type { Logger } from 'pino';

/** Something to close on shutdown, named for the log. */
export interface Closable {
  name: string;
  close(): Promise<void>;
}

/**
 * Closes every component on SIGTERM/SIGINT with `Promise.allSettled`, logs each step, and exits
 * (0 when all closed, 1 otherwise). A second signal exits at once.
 */
export function installShutdown(logger: Logger, closables: readonly Closable[], timeoutMs = 10_000): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    void closeAll(logger, closables).then((ok) => {
      logger.info({ ok }, 'shutdown complete');
      process.exit(ok ? 0 : 1);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

/** Closes components in order given (dependents first), logging each; true when all closed. */
export async function closeAll(logger: Logger, closables: readonly Closable[]): Promise<boolean> {
  let ok = true;
  for (const c of closables) {
    const [result] = await Promise.allSettled([c.close()]);
    if (result?.status === 'rejected') {
      ok = false;
      logger.error({ component: c.name, err: result.reason }, 'close failed');
    } else {
      logger.info({ component: c.name }, 'closed');
    }
  }
  return ok;
}
