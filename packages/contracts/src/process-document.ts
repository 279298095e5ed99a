import { z } from 'zod';
import { JsonObject } from './common';
import { OutboxEntry } from './outbox-entry';
import { Traceparent } from './traceparent';
import { ProcessMode, ProcessState, StepState } from './process-state';
import { StatusEvents } from './status-event';

/** State of one step inside a process document. */
export const StepRecord = z.object({
  name: z.string(),
  agent: z.string(),
  operation: z.string(),
  /** Operation that undoes this step; null when the step needs no undo. */
  compensation: z.string().nullable(),
  state: StepState,
  /** How many times this step (in its current mode) was dispatched. */
  dispatches: z.number().int().nonnegative(),
  /** Stable across retries and recoveries, so the remote applies the step once. */
  idempotencyKey: z.string(),
  startedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  result: JsonObject.nullable(),
  error: z.string().nullable(),
  /**
   * When the step was first parked (its remote's circuit open) in its current mode, null or absent
   * when it is not parked. Parking is bounded by the workflow's `parking.maxParkedMs`. Optional:
   * documents written before the bound existed have none.
   */
  parkedSince: z.date().nullable().optional(),
  /**
   * What the record stands for: a task run by an agent (absent: every record written before the other
   * kinds existed), a wait step (a durable timer) or a signal step (waits for a named signal sent from
   * outside). A wait or signal record has `agent` '' (no agent runs it), `operation` 'wait' or 'signal',
   * and `compensation` null: nothing to undo. Optional.
   */
  kind: z.enum(['task', 'wait', 'signal']).optional(),
  /** The parallel group this task belongs to (its members' records are consecutive); absent outside a group. */
  group: z.string().optional(),
  /**
   * A group member's own fence: the process's `attempt` of its latest dispatch. A reply to a member is
   * current when it carries this attempt, whatever its siblings' dispatches did to the process's attempt.
   * Absent outside a group.
   */
  attempt: z.number().int().nonnegative().optional(),
  /** A group member's own complete-by (the process's `completeBy` is the earliest of its Running members'). */
  completeBy: z.date().nullable().optional(),
  /**
   * The complete-by of the step's latest forward dispatch, kept through its undo: the undo request
   * carries it (`compensates.completeBy`) so an agent knows when the forward call can no longer
   * land. Optional: records written before it have none.
   */
  forwardCompleteBy: z.date().nullable().optional(),
  /** A group member's own count of recoveries (the process's `failureCount` is the highest of its members'). */
  failureCount: z.number().int().nonnegative().optional(),
  /** A group member waiting to be dispatched again (recovered, parked, its send failed) is not dispatched before this. */
  notBefore: z.date().nullable().optional(),
  /** A wait step's instant; a signal step's timeout deadline. */
  waitUntil: z.date().nullable().optional(),
  /** The name of the signal a signal step waits for. */
  signal: z.string().optional(),
});
export type StepRecord = z.infer<typeof StepRecord>;

/** The most signals one process keeps; a signal beyond is refused with a clear answer. */
export const MAX_SIGNALS_PER_PROCESS = 50;

/** A signal received by a process (see `ProcessDocument.signals`). */
export const ReceivedSignal = z.object({
  /** Chosen by the sender: a signal sent again with the same id is a repeat, not a second signal. */
  id: z.string(),
  name: z.string(),
  /** Becomes the result of the signal step that consumes it; at most the step result size limit. */
  data: JsonObject.nullable(),
  at: z.date(),
  /** The signal step that consumed it; null or absent while it waits for one. */
  consumedBy: z.string().nullable().optional(),
});
export type ReceivedSignal = z.infer<typeof ReceivedSignal>;

/**
 * One task (order) in the `processes` collection. Single-document writes give atomicity; every
 * write is conditional on `state` and `attempt`.
 */
export const ProcessDocument = z.object({
  _id: z.string(),
  schemaVersion: z.literal(1),
  orderId: z.string(),
  workflow: z.string(),
  workflowVersion: z.number().int().positive(),
  payload: JsonObject,
  state: ProcessState,
  mode: ProcessMode,
  /** Scheduler instance holding the process, null when none does. */
  lockedBy: z.string().nullable(),
  /** When the held step must have answered; the supervisor recovers it after this. */
  completeBy: z.date().nullable(),
  /** Recoveries since the last success or operator action. */
  failureCount: z.number().int().nonnegative(),
  /** Optimistic-concurrency version: every write is conditional on it and increments it. */
  revision: z.number().int().nonnegative(),
  /**
   * Names the write that made this revision, unique to it: a writer whose commit answer was lost
   * reads the process back and knows its own write from another writer's of the same revision,
   * even one made in the same millisecond with the same state (decision 53). Absent on documents
   * written before it existed.
   */
  writeId: z.string().max(200).optional(),
  /** Fencing token, incremented on every claim and recovery; replies of older attempts are stale. */
  attempt: z.number().int().nonnegative(),
  /** A scheduler may not claim the process before this (parked steps, extended waits). */
  notBefore: z.date(),
  /** Index of the step being run (forward) or undone (compensate). */
  currentStep: z.number().int().nonnegative(),
  steps: z.array(StepRecord),
  /** Times the `wait` failure policy has already extended this process. */
  waits: z.number().int().nonnegative(),
  /** Why the process is in its state (last failure, cancel reason). */
  reason: z.string().nullable(),
  /** Set by an operator cancel: once compensation ends the state is `Canceled`, not `Compensated`. */
  canceled: z.boolean(),
  replyTo: z.string().nullable(),
  /**
   * Which status events the submission asked for (`final`: no `Processing` and `StepCompleted`).
   * Optional: absent means `all`, as for documents written before it existed.
   */
  statusEvents: StatusEvents.optional(),
  createdAt: z.date(),
  updatedAt: z.date(),
  /** Set when the process is terminal; the TTL index removes it later. */
  deleteTime: z.date().nullable(),
  /**
   * Status events, alerts and history of committed transitions not yet delivered. Optional: documents
   * written before the outbox existed have none, which means nothing is owed.
   */
  outbox: z.array(OutboxEntry).optional(),
  /**
   * Since when the outbox is due (it owes a message, or the process finished), null or absent when
   * it is not: the indexed field the supervisor's sweep for outboxes left behind by a crash reads.
   * History entries alone are owed without being due: they wait for the next delivery (decision 62).
   * Optional: older documents have none.
   */
  outboxSince: z.date().nullable().optional(),
  /**
   * Complete-by of an attempt whose dispatch failed to send yet may have left (a send whose answer
   * was lost): until then its forward call may still reach the agent and the remote, so no undo is
   * dispatched before it. Optional: older documents have none, which means nothing is in flight.
   */
  inFlightUntil: z.date().nullable().optional(),
  /**
   * The paused agent this Pending process waits for: its next dispatch (forward step or
   * compensation) goes to that agent, so it is held (notBefore far ahead, nothing in flight) until
   * the agent is resumed. Null or absent when not held. Optional: older documents have none.
   */
  heldFor: z.string().nullable().optional(),
  /**
   * Fingerprint of the submission that created the process (workflow, version, payload, replyTo),
   * so a redelivered submission is answered as the first time and only a different submission
   * with a taken orderId is a Duplicate. Optional: older documents have none.
   */
  submissionFingerprint: z.string().optional(),
  /**
   * The latest operator commands applied to this process (newest last, a few kept), so a command
   * redelivered after its result was lost answers what it did the first time. Optional: older
   * documents have none.
   */
  commands: z
    .array(z.object({ id: z.string(), command: z.enum(['resubmit', 'cancel']), message: z.string(), at: z.date() }))
    .optional(),
  /**
   * The trace context of the submission that created the process (its `submit` span), so every
   * scheduler and supervisor, after any restart, adds its spans to the same trace. Optional:
   * absent when tracing was off at submission, and in documents written before tracing existed.
   */
  traceparent: Traceparent,
  /**
   * Signals sent to this process from outside (at most {@link MAX_SIGNALS_PER_PROCESS}), oldest
   * first: kept until a signal step of their name consumes one, so a signal sent before its step is
   * reached is not lost, and a signal sent again with the same id is answered as the first time.
   * Optional: older documents have none.
   */
  signals: z.array(ReceivedSignal).optional(),
});
export type ProcessDocument = z.infer<typeof ProcessDocument>;
