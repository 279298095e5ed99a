import type { Logger } from 'pino';

/** Something to close on shutdown, named for the log. */
export interface Closable {
  name: string;
  close(): Promise<void>;
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
