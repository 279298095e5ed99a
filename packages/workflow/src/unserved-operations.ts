import type { AgentRegistration } from '@sas/contracts';
import type { WorkflowDefinition } from './workflow-definition';
import { taskSteps } from './workflow-entries';

/** A step operation or compensation that no live agent instance serves. */
export interface UnservedOperation {
  workflow: string;
  version: number;
  step: string;
  agent: string;
  operation: string;
  kind: 'operation' | 'compensation';
  /** Why, as a reader would say it: no live instance at all, or instances that lack the operation. */
  reason: string;
}

/**
 * Every step operation and compensation of `workflows` that no registered live agent serves: the
 * agent has no live instance, or none of its instances has a handler of that name (a typo such as
 * `refnd` for `refund`, found before an undo needs it). An instance with a catch-all handler serves
 * every name. Pure: the caller reads the registrations and reports.
 */
export function unservedOperations(workflows: readonly WorkflowDefinition[], registrations: readonly AgentRegistration[]): UnservedOperation[] {
  const byAgent = new Map<string, AgentRegistration[]>();
  for (const r of registrations) byAgent.set(r.agent, [...(byAgent.get(r.agent) ?? []), r]);
  const gaps: UnservedOperation[] = [];
  for (const w of workflows) {
    for (const step of taskSteps(w)) {
      const wanted: Array<[UnservedOperation['kind'], string]> = [['operation', step.operation]];
      if (step.compensation !== null) wanted.push(['compensation', step.compensation]);
      const instances = byAgent.get(step.agent) ?? [];
      for (const [kind, operation] of wanted) {
        if (instances.some((i) => i.servesOtherOperations || i.operations.includes(operation))) continue;
        const served = [...new Set(instances.flatMap((i) => i.operations))].sort();
        const reason =
          instances.length === 0
            ? `no live instance of agent '${step.agent}' is registered`
            : `agent '${step.agent}' (${instances.length} live instance(s)) serves ${served.join(', ') || 'nothing'}, not '${operation}'`;
        gaps.push({ workflow: w.name, version: w.version, step: step.name, agent: step.agent, operation, kind, reason });
      }
    }
  }
  return gaps;
}

/** `shop@1 step charge-payment: compensation 'refnd' — agent 'payment' (1 live instance(s)) serves charge, refund, not 'refnd'`. */
export function describeUnserved(gap: UnservedOperation): string {
  return `${gap.workflow}@${gap.version} step ${gap.step}: ${gap.kind} '${gap.operation}' — ${gap.reason}`;
}
