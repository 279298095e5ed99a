/** Connections a service opened while starting, which must be up before it reports ready. */
export interface StartingConnections {
  /** What `/readyz` asks of them (`ProcessService.connectionsReady`). */
  ready(): boolean;
  /** What is not up yet, for the progress line: `Redis at 127.0.0.1:6379 (connecting)`. */
  waitingFor(): string[];
}

/** Where a main being started records its connections (see {@link startService}). */
const STARTING_KEY = Symbol.for('@sas/wiring.starting-service');

/**
 * The connections of the service being started, if one is: a process-wide slot, not an
 * `AsyncLocalStorage`. Entering an `AsyncLocalStorage` context around a service's main turns on
 * Node 22's async hooks for every promise the service ever makes, and cost the services 10-20% of
 * their CPU per order (decision 132). A slot suffices because services start one at a time: alone
 * in their process, or one after the other in the shared core (`runSharedProcess` awaits each).
 * A global, not a module variable: a service that resolved its own copy of this package records here too.
 */
function slot(): { current: StartingConnections[] | undefined } {
  const global = globalThis as { [STARTING_KEY]?: { current: StartingConnections[] | undefined } };
  return (global[STARTING_KEY] ??= { current: undefined });
}

/**
 * Runs a service's main and collects the connections it opens ({@link recordConnections}) until
 * its main settles, so the launcher can hold its ready line until they are up. The mains return
 * only their closables and ready line; the connections are recorded on the side, so the mains
 * need not change (and a main that opens none is ready at once). One service starts at a time.
 */
export function startService<T>(main: () => Promise<T>): { result: Promise<T>; connections: readonly StartingConnections[] } {
  const connections: StartingConnections[] = [];
  const starting = slot();
  if (starting.current) throw new Error('startService: another service is still starting in this process; start services one after the other');
  starting.current = connections;
  const end = (): void => {
    if (starting.current === connections) starting.current = undefined;
  };
  let result: Promise<T>;
  try {
    result = main();
  } catch (e) {
    end();
    throw e;
  }
  return { result: result.finally(end), connections };
}

/** Records connections of the service being started; nothing outside {@link startService} (a test's own `openProcessService`). */
export function recordConnections(connections: StartingConnections): void {
  slot().current?.push(connections);
}
