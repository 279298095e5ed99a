import type { AgentRequest } from '@sas/contracts';
import type { Tracing } from '@sas/runtime';
import type { AgentCall } from './agent-call';
import type { HandleOutcome } from './handle-outcome';

/**
 * Runs one request (a step attempt, or a compensation attempt) inside a span
 * `<agent>.<operation> attempt <n>`, the child of the scheduler's dispatch span the request names.
 * The request handed to `run` carries the attempt span's context, so the tries and the reply
 * continue it. Its `outcome` attribute is what the agent did (replied-ok, parked, expired-silent...).
 */
export async function traceAttempt(
  tracing: Tracing,
  request: AgentRequest,
  run: (traced: AgentRequest) => Promise<HandleOutcome>,
): Promise<HandleOutcome> {
  const span = tracing.startSpan(`${request.agent}.${request.operation} attempt ${request.attempt}`, {
    parent: request.traceparent,
    kind: 'consumer',
    attributes: {
      processId: request.processId,
      orderId: request.orderId,
      step: request.step,
      attempt: request.attempt,
      mode: request.mode,
      agent: request.agent,
      operation: request.operation,
    },
  });
  try {
    const outcome = await run({ ...request, traceparent: span.traceparent });
    span.setAttributes({ outcome: outcome.kind, ...('calls' in outcome && { calls: outcome.calls }) });
    span.end(outcome.kind === 'replied-error' ? new Error(`${outcome.errorKind}: ${outcome.message}`) : undefined);
    return outcome;
  } catch (e) {
    span.end(e);
    throw e;
  }
}

/**
 * Makes one try of the remote call inside a client span `<agent>.<operation> try <n>`, the child
 * of the attempt span, and hands the handler that span's context as `call.traceparent` (the HTTP
 * agent sends it as the `traceparent` header, so the remote's own spans join the order's trace).
 */
export async function traceTry<Input, Result>(
  tracing: Tracing,
  call: AgentCall<Input>,
  handle: (call: AgentCall<Input>) => Promise<Result>,
): Promise<Result> {
  const span = tracing.startSpan(`${call.agent}.${call.operation} try ${call.tryNumber}`, {
    parent: call.traceparent,
    kind: 'client',
    attributes: { processId: call.processId, step: call.step, attempt: call.attempt, mode: call.mode, try: call.tryNumber },
  });
  try {
    const result = await handle({ ...call, traceparent: span.traceparent });
    span.end();
    return result;
  } catch (e) {
    span.end(e);
    throw e;
  }
}
