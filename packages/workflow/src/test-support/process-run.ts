import { QueueNames, type AgentRequest, type ProcessDocument } from '@sas/contracts';
import type { Action } from '../action';
import { createProcess } from '../create-process';
import { orderFulfilmentV1 } from '../order-fulfilment';
import type { ProcessInput } from '../process-input';
import { transition } from '../transition';
import type { TransitionResult } from '../transition-result';
import type { WorkflowDefinition } from '../workflow-definition';
import { answer, ok, type ReplyBody } from './reply-body';

/** The instant every run starts at; tests state times as offsets from it. */
export const T0 = Date.UTC(2030, 0, 1);

/** The order every run processes: assertions on ids and payloads refer to these values. */
const ORDER = { processId: 'p-1', orderId: 'o-1', payload: { sku: 'sku-1' } };

/** A transition that applied, as {@link ProcessRun.apply} returns it. */
export type Applied = Extract<TransitionResult, { applied: true }>;

/**
 * One process driven through the state machine the way the services drive it, with its own
 * clock: `apply` commits a transition (and throws if it was refused, so a test cannot silently
 * drift off its script), `try` only asks.
 */
export class ProcessRun {
  doc: ProcessDocument;
  now = T0;
  /** The actions of the last applied transition. */
  actions: Action[] = [];
  /** Agents an operator paused, as the caller of every transition reads them. */
  pausedAgents = new Set<string>();

  constructor(
    readonly workflow: WorkflowDefinition = orderFulfilmentV1,
    replyTo: string | null = 'app.status',
  ) {
    this.doc = createProcess({ ...ORDER, replyTo, workflow, now: T0 });
  }

  /** The transition `input` would make now, without committing it. */
  try(input: ProcessInput, who = 'scheduler-1'): TransitionResult {
    return transition(this.doc, input, {
      workflow: this.workflow,
      now: this.now,
      who,
      replyQueue: QueueNames.schedulerReplies,
      pausedAgents: this.pausedAgents,
    });
  }

  /** Applies `input` and commits the result; throws with the refusal if it did not apply. */
  apply(input: ProcessInput, who?: string): Applied {
    const result = this.try(input, who);
    if (!result.applied) throw new Error(`${input.type} did not apply: ${result.reason}`);
    this.doc = result.next;
    this.actions = result.actions;
    return result;
  }

  /** Every request the last transition dispatched, in order (a parallel group's members). */
  requests(): AgentRequest[] {
    return this.actions.flatMap((a) => (a.type === 'dispatch' ? [a.request] : []));
  }

  /** The request the last transition dispatched for `step`; throws when there was none. */
  requestFor(step: string): AgentRequest {
    const found = this.requests().find((r) => r.step === step);
    if (!found) throw new Error(`no dispatch of ${step}; sent: ${this.requests().map((r) => r.step).join(', ') || 'nothing'}`);
    return found;
  }

  /** The one request the last transition dispatched; throws unless there was exactly one. */
  request(): AgentRequest {
    const sent = this.actions.flatMap((a) => (a.type === 'dispatch' ? [a.request] : []));
    if (sent.length !== 1 || !sent[0]) throw new Error(`expected one dispatch, got ${sent.length}`);
    return sent[0];
  }

  /** Applies the agent's reply to `request` (by default the one just dispatched). */
  reply(body: ReplyBody, request = this.request(), who?: string): Applied {
    return this.apply({ type: 'reply', reply: answer(request, body, this.now) }, who);
  }

  /** Moves the clock to the held step's complete-by time and lets the supervisor expire it. */
  expire(): Applied {
    if (!this.doc.completeBy) throw new Error(`nothing is held: process is ${this.doc.state}`);
    this.now = this.doc.completeBy.getTime();
    return this.apply({ type: 'expire' }, 'supervisor-1');
  }
}

/** A run whose first step completed and whose second step (charge-payment, attempt 2) is in flight. */
export function secondStepInFlight(workflow: WorkflowDefinition = orderFulfilmentV1): ProcessRun {
  const run = new ProcessRun(workflow);
  run.apply({ type: 'claim' });
  run.reply(ok({ reservationId: 'r-1' }));
  return run;
}
