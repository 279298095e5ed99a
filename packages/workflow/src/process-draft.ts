import {
  clone,
  QueueNames,
  SCHEMA_VERSION,
  sendsStatus,
  type Alert,
  type ProcessDocument,
  type ProcessState,
  type StatusEvent,
  type StepRecord,
} from '@sas/contracts';
import type { Action } from './action';
import type { OperatorInput } from './process-input';
import { earlierResults } from './earlier-results';
import { idempotencyKey } from './idempotency-key';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';
import type { StepDefinition } from './workflow-definition';
import { entryStart, taskSteps } from './workflow-entries';

/** Operator commands remembered per process for answering repeats. */
const MAX_REMEMBERED_COMMANDS = 10;

/**
 * A copy of a process being changed by one transition, with the helpers every transition shares.
 * `finish()` stamps revision, updatedAt and the history entry.
 */
export class ProcessDraft {
  readonly doc: ProcessDocument;
  readonly actions: Action[] = [];

  constructor(
    private readonly original: ProcessDocument,
    readonly ctx: TransitionContext,
  ) {
    this.doc = clone(original);
  }

  get now(): Date {
    return new Date(this.ctx.now);
  }

  step(index = this.doc.currentStep): StepRecord {
    const step = this.doc.steps[index];
    if (!step) throw new Error(`Process ${this.doc._id} has no step ${index}`);
    return step;
  }

  definition(index = this.doc.currentStep): StepDefinition {
    const name = this.step(index).name;
    const def = taskSteps(this.ctx.workflow).find((s) => s.name === name);
    if (!def) throw new Error(`Workflow ${this.ctx.workflow.name} v${this.ctx.workflow.version} has no step '${name}'`);
    return def;
  }

  /**
   * Holds the process and sends the current step (or its compensation) to its agent. A forward
   * group member (`index`, another member than the current record) gets its own fence and
   * complete-by, and the process's complete-by is the earliest of its Running members'.
   */
  dispatch(index = this.doc.currentStep): void {
    const mode = this.doc.mode;
    const step = this.step(index);
    const def = this.definition(index);
    const operation = mode === 'forward' ? step.operation : step.compensation;
    if (operation === null) throw new Error(`Step '${step.name}' has no compensation to dispatch`);
    this.doc.state = mode === 'forward' ? 'Processing' : 'Compensating';
    this.doc.attempt += 1;
    this.doc.lockedBy = this.ctx.who;
    this.doc.completeBy = new Date(this.ctx.now + def.completeByMs);
    step.state = mode === 'forward' ? 'Running' : 'Compensating';
    if (mode === 'forward' && step.group !== undefined) {
      step.attempt = this.doc.attempt;
      step.completeBy = new Date(this.ctx.now + def.completeByMs);
      step.notBefore = null;
      this.doc.completeBy = earliestMemberCompleteBy(this.doc.steps, step.group);
    }
    // Kept through the undo, which tells its agent when the forward call can no longer land.
    if (mode === 'forward') step.forwardCompleteBy = new Date(this.ctx.now + def.completeByMs);
    step.dispatches += 1;
    if (this.doc.heldFor) this.doc.heldFor = null;
    step.startedAt ??= this.now;
    this.actions.push({
      type: 'dispatch',
      queue: QueueNames.agentRequests(step.agent),
      request: {
        schemaVersion: SCHEMA_VERSION,
        processId: this.doc._id,
        orderId: this.doc.orderId,
        step: step.name,
        stepIndex: index,
        mode,
        agent: step.agent,
        operation,
        attempt: this.doc.attempt,
        idempotencyKey: idempotencyKey(this.doc._id, step.name, mode),
        completeBy: this.ctx.now + def.completeByMs,
        // `payload.compensating` predates `compensates.result`; kept for agents that still read it.
        payload: mode === 'forward' ? this.doc.payload : { ...this.doc.payload, compensating: step.result },
        // A member sees what came before its group, never a sibling's result (that would depend on timing).
        results: earlierResults(this.doc.steps, step.group === undefined ? index : entryStart(this.doc.steps, index)),
        retry: def.retry,
        replyTo: this.ctx.replyQueue,
        // An undo names the forward call it undoes, so the remote can refuse that call if it arrives later.
        ...(mode === 'compensate'
          ? {
              compensates: {
                idempotencyKey: idempotencyKey(this.doc._id, step.name, 'forward'),
                result: step.result,
                ...(step.forwardCompleteBy && { completeBy: step.forwardCompleteBy.getTime() }),
              },
            }
          : {}),
      },
    });
  }

  /** Releases the process for any scheduler to claim at `atMs`; any reply of the current attempt becomes stale. */
  release(atMs: number): void {
    this.doc.state = 'Pending';
    this.doc.attempt += 1;
    this.doc.lockedBy = null;
    this.doc.completeBy = null;
    this.doc.notBefore = new Date(atMs);
    if (this.doc.heldFor) this.doc.heldFor = null;
    this.actions.push({ type: 'wake', atMs });
  }

  /** Ends the process for good (or until an operator acts, for Error). */
  settle(state: Extract<ProcessState, 'Processed' | 'Compensated' | 'Canceled' | 'Error'>): void {
    this.doc.state = state;
    this.doc.lockedBy = null;
    this.doc.completeBy = null;
    this.doc.deleteTime = state === 'Error' ? null : new Date(this.ctx.now + this.ctx.workflow.retentionMs);
  }

  /** Sends a status event to the process's `replyTo`, unless the submission asked for none of this kind. */
  status(status: StatusEvent['status'], extra: { step?: string; reason?: string } = {}): void {
    if (!this.doc.replyTo || !sendsStatus(this.doc.statusEvents, status)) return;
    this.actions.push({
      type: 'status',
      replyTo: this.doc.replyTo,
      event: {
        schemaVersion: SCHEMA_VERSION,
        orderId: this.doc.orderId,
        processId: this.doc._id,
        status,
        ...extra,
        at: this.ctx.now,
      },
    });
  }

  /** Tells an operator about the step at `index` (by default the current one). */
  alert(kind: Alert['kind'], reason: string, index = this.doc.currentStep): void {
    this.actions.push({
      type: 'alert',
      alert: {
        schemaVersion: SCHEMA_VERSION,
        kind,
        processId: this.doc._id,
        orderId: this.doc.orderId,
        step: this.step(index).name,
        // A group member going forward has its own count; an undo counts on the process.
        failureCount: (this.doc.mode === 'forward' ? this.step(index).failureCount : undefined) ?? this.doc.failureCount,
        reason,
        at: this.ctx.now,
      },
    });
  }

  /** Remembers an applied operator command, so its redelivery answers the same (the latest few are kept). */
  recordCommand(input: OperatorInput, message: string): void {
    if (!input.commandId) return;
    const kept = (this.doc.commands ?? []).slice(-(MAX_REMEMBERED_COMMANDS - 1));
    this.doc.commands = [...kept, { id: input.commandId, command: input.type, message, at: this.now }];
  }

  /** The step a history entry is about: a group going forward is named as a whole (its `why` names the member). */
  private historyStep(): string | null {
    const record = this.doc.steps[this.doc.currentStep];
    if (!record) return null;
    return this.doc.mode === 'forward' && record.group !== undefined ? record.group : record.name;
  }

  finish(why: string): TransitionResult {
    this.doc.revision = this.original.revision + 1;
    this.doc.updatedAt = this.now;
    return {
      applied: true,
      next: this.doc,
      actions: this.actions,
      history: {
        processId: this.doc._id,
        orderId: this.doc.orderId,
        who: this.ctx.who,
        at: this.now,
        from: this.original.state,
        to: this.doc.state,
        why,
        attempt: this.doc.attempt,
        step: this.historyStep(),
        // History lives as long as its process and a retention period more, so an audit can still
        // read it: none while the process is unfinished (an Error process waits for an operator as
        // long as it takes); the delivery of the terminal transition dates the earlier entries too.
        deleteTime: this.doc.deleteTime ? new Date(this.doc.deleteTime.getTime() + this.ctx.workflow.retentionMs) : null,
      },
    };
  }
}

/** The earliest complete-by of the group's Running members: what the supervisor's sweep waits for. */
function earliestMemberCompleteBy(steps: readonly StepRecord[], group: string): Date | null {
  let earliest: Date | null = null;
  for (const s of steps) {
    if (s.group !== group || s.state !== 'Running' || !s.completeBy) continue;
    if (earliest === null || s.completeBy.getTime() < earliest.getTime()) earliest = s.completeBy;
  }
  return earliest === null ? null : new Date(earliest);
}
