import { QueueNames, SCHEMA_VERSION, type Alert, type AgentRegistration } from '@sas/contracts';
import type { Outbox } from '@sas/engine';
import { ensureError, type Clock, type Closable } from '@sas/runtime';
import { describeUnserved, unservedOperations, workflowsToCheck, type WorkflowRegistry } from '@sas/workflow';
import type { Logger } from 'pino';

/** Dependencies of {@link checkAgentCoverage}. */
export interface AgentCoverageDeps {
  registry: WorkflowRegistry;
  registrations: { listLive(now: Date): Promise<AgentRegistration[]> };
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}

/** Most gaps named in one alert's reason; the log line carries them all. */
const MAX_GAPS_IN_ALERT = 10;

/**
 * Compares the deployed workflows with the agents registered as live and, for each step operation
 * or compensation none of them serves, logs a warning and sends one `OperationUnserved` alert.
 * Not a refusal: agents may start after the scheduler, and a process waits for its agent anyway.
 * When a deployment adds its own workflows only those are checked: the built-in ones are always
 * registered, and their agents need not run where nobody submits to them. Never throws.
 *
 * @returns the lines it reported (empty when every operation is served).
 */
export async function checkAgentCoverage(deps: AgentCoverageDeps): Promise<string[]> {
  const { registry, registrations, outbox, clock, logger } = deps;
  try {
    const now = clock.now();
    const gaps = unservedOperations(workflowsToCheck(registry), await registrations.listLive(new Date(now))).map(describeUnserved);
    if (gaps.length === 0) {
      logger.info('every step operation and compensation is served by a live agent');
      return [];
    }
    logger.warn({ unserved: gaps }, `${gaps.length} step operation(s) or compensation(s) no live agent serves; start the agents, or fix the names (sas workflows check --live)`);
    const listed = gaps.slice(0, MAX_GAPS_IN_ALERT).join('; ');
    const more = gaps.length > MAX_GAPS_IN_ALERT ? `; and ${gaps.length - MAX_GAPS_IN_ALERT} more (see the scheduler's log)` : '';
    const alert: Alert = { schemaVersion: SCHEMA_VERSION, kind: 'OperationUnserved', reason: `no live agent serves: ${listed}${more}`, at: now };
    await outbox.send(QueueNames.alerts, alert);
    return gaps;
  } catch (e) {
    logger.warn({ err: ensureError(e).message }, 'could not compare the workflows with the live agents; run sas workflows check --live');
    return [];
  }
}

/**
 * Runs {@link checkAgentCoverage} once, `delayMs` after start (agents started with the scheduler
 * have registered by then); a negative delay never runs it. The returned closable cancels it.
 */
export function scheduleAgentCoverageCheck(deps: AgentCoverageDeps, delayMs: number): Closable {
  const timer = delayMs < 0 ? undefined : setTimeout(() => void checkAgentCoverage(deps), delayMs);
  timer?.unref();
  return {
    name: 'agent check',
    close: () => {
      clearTimeout(timer);
      return Promise.resolve();
    },
  };
}
