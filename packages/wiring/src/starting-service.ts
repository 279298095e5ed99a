import { AsyncLocalStorage } from 'node:async_hooks';

/** Connections a service opened while starting, which must be up before it reports ready. */
export interface StartingConnections {
  /** What `/readyz` asks of them (`ProcessService.connectionsReady`). */
  ready(): boolean;
  /** What is not up yet, for the progress line: `Redis at 127.0.0.1:6379 (connecting)`. */
  waitingFor(): string[];
}

/** Where a main being started records its connections (see {@link startService}). */
const STARTING_KEY = Symbol.for('@sas/wiring.starting-service');

// A global, not a module variable: a service that resolved its own copy of this package records here too.
function storage(): AsyncLocalStorage<StartingConnections[]> {
  const global = globalThis as { [STARTING_KEY]?: AsyncLocalStorage<StartingConnections[]> };
  return (global[STARTING_KEY] ??= new AsyncLocalStorage());
}

/**
 * Runs a service's main and collects the connections it opens ({@link recordConnections}), so
 * the launcher can hold its ready line until they are up. The mains return only their closables
 * and ready line; the connections are recorded through the async context instead, so the mains
 * need not change (and a main that opens none is ready at once).
 */
export function startService<T>(main: () => Promise<T>): { result: Promise<T>; connections: readonly StartingConnections[] } {
  const connections: StartingConnections[] = [];
  return { result: storage().run(connections, main), connections };
}

/** Records connections of the service being started; nothing outside {@link startService} (a test's own `openProcessService`). */
export function recordConnections(connections: StartingConnections): void {
  storage().getStore()?.push(connections);
}
