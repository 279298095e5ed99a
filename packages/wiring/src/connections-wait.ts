import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@sas/runtime';
import type { StartingConnections } from './starting-service';

/** Options of {@link waitForConnections}. */
export interface ConnectionsWaitOptions {
  /** Start-up fails when the connections are not up by then. @default 60000 */
  deadlineMs?: number;
  /** A progress line while the wait lasts, this often. @default 5000 */
  progressEveryMs?: number;
  /** True once the process is shutting down: the wait ends, and the service reports no ready line. */
  stopped(): boolean;
}

/** How often the connections are looked at: a ready line this much late is not noticed by anyone. */
const POLL_MS = 25;

/**
 * Waits until a started service's connections are up, as its `/readyz` sees them, before it
 * reports ready: a launcher (or a test) that acts on the ready line must find the service's
 * Redis and MongoDB connections usable, and a shutdown right after the line must find nothing
 * still opening. Says what it waits for every `progressEveryMs`; fails after `deadlineMs`,
 * naming it, rather than waiting silently for ever. Resolves `'stopped'` when a shutdown began.
 */
export async function waitForConnections(service: string, logger: Logger, connections: readonly StartingConnections[], options: ConnectionsWaitOptions): Promise<'up' | 'stopped'> {
  const deadlineMs = options.deadlineMs ?? 60_000;
  const progressEveryMs = options.progressEveryMs ?? 5_000;
  const began = Date.now();
  let nextProgress = began + progressEveryMs;
  for (;;) {
    if (options.stopped()) return 'stopped';
    if (connections.every((c) => c.ready())) return 'up';
    const now = Date.now();
    const waitingFor = describeWaiting(connections);
    if (now - began >= deadlineMs) {
      throw new Error(
        `${service} did not become ready: after ${deadlineMs} ms it still waits for ${waitingFor}. Check that Redis and MongoDB are running and reachable at REDIS_URL and MONGO_URL`,
      );
    }
    if (now >= nextProgress) {
      nextProgress += progressEveryMs;
      logger.warn({ waitedMs: now - began, deadlineMs }, `${service} is not ready yet: waiting for ${waitingFor}`);
    }
    await sleep(POLL_MS);
  }
}

/** What the connections still wait for, in words. */
function describeWaiting(connections: readonly StartingConnections[]): string {
  const waiting = connections.filter((c) => !c.ready()).flatMap((c) => c.waitingFor());
  return waiting.length > 0 ? waiting.join('; ') : 'its connections';
}
