/**
 * Where the stack reports what it starts and why (which MongoDB it picked, an unexpected exit).
 * A plain function rather than a pino logger so the demo launcher can print to a terminal and
 * tests can collect messages in an array, without this package depending on a logger.
 */
export type LogFn = (msg: string, fields?: Record<string, unknown>) => void;

/** The default {@link LogFn}: says nothing, so library callers opt in to output. */
export const silentLog: LogFn = () => undefined;
