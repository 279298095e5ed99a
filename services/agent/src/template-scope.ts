import type { AgentCall } from '@sas/agent';
import type { TemplateScope } from './template';

/** What a call's templates (the call's and its lookup's) are filled from. */
export function templateScopeOf(call: AgentCall<unknown>, env: Readonly<Record<string, string>>): TemplateScope {
  return {
    agent: call.agent,
    operation: call.operation,
    orderId: call.orderId,
    processId: call.processId,
    step: call.step,
    attempt: call.attempt,
    try: call.tryNumber,
    mode: call.mode,
    idempotencyKey: call.idempotencyKey,
    payload: call.payload,
    results: call.results,
    compensates: call.compensates,
    env,
  };
}
