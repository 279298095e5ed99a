import type { AgentRequest, ProcessDocument } from '@sas/contracts';
import type { TraceSpan, Tracing } from '@sas/runtime';
import type { ProcessInput } from '@sas/workflow';

const SPAN_NAMES: Record<ProcessInput['type'], string> = {
  claim: 'claim',
  reply: 'apply reply',
  expire: 'recover',
  resubmit: 'resubmit',
  cancel: 'cancel',
  undelivered: 'release undelivered',
  signal: 'apply signal',
};

/**
 * The spans of one committed transition, in the trace the process was submitted with: a span
 * named after the input (`claim`, `apply reply`, `recover`...), a child of the `submit` span, and
 * a `dispatch <step>` span under it per request sent, whose context the request carries to the
 * agent. A reply's span is not the child of the agent's span but links to it: every step stays a
 * direct subtree of the order's trace instead of nesting each step under the one before it.
 */
export class TransitionTrace {
  private constructor(
    private readonly tracing: Tracing,
    private readonly span: TraceSpan,
  ) {}

  /** Starts the span of a transition that was just committed (`from` is the state before it). */
  static start(tracing: Tracing, next: ProcessDocument, input: ProcessInput, from: string): TransitionTrace {
    const reply = input.type === 'reply' ? input.reply : undefined;
    const span = tracing.startSpan(SPAN_NAMES[input.type], {
      parent: next.traceparent,
      kind: reply ? 'consumer' : 'internal',
      attributes: {
        processId: next._id,
        orderId: next.orderId,
        attempt: next.attempt,
        from,
        to: next.state,
        ...(reply && { step: reply.step, mode: reply.mode, outcome: reply.outcome, replyAttempt: reply.attempt }),
      },
      ...(reply?.traceparent !== undefined && { links: [reply.traceparent] }),
    });
    return new TransitionTrace(tracing, span);
  }

  /** Starts the span of one dispatch; the request sent carries its `traceparent`. */
  dispatch(request: AgentRequest): TraceSpan {
    return this.tracing.startSpan(`dispatch ${request.step}`, {
      parent: this.span,
      kind: 'producer',
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
  }

  /** Ends the transition's span; a dispatch that did not leave marks it failed. */
  end(error?: string): void {
    this.span.end(error === undefined ? undefined : new Error(error));
  }
}
