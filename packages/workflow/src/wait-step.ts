import type { ProcessDocument } from '@sas/contracts';
import { evaluateExpression } from './condition';
import { conditionFailed, conditionInput } from './entry-condition';
import type { ProcessDraft } from './process-draft';
import type { StartEntry } from './start-entry';
import type { TransitionResult } from './transition-result';
import type { WaitStep } from './workflow-definition';
import { entryOf, nextEntryIndex } from './workflow-entries';

/** RFC 3339 as `until` may give it: a date, a time, seconds (fraction optional) and a zone. */
const RFC_3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** When a wait step fires, or why that cannot be known (a permanent failure of the step). */
type WaitInstant = { ok: true; atMs: number } | { ok: false; error: string };

/**
 * The instant a wait step fires, reached at `nowMs`: `ms` after now, or what its `until` CEL
 * expression gives over `{ payload, results }`: an RFC 3339 string, epoch milliseconds (int or
 * double) or a CEL timestamp. Anything else, or an evaluation error, is an error saying so.
 */
function waitInstant(step: WaitStep, doc: ProcessDocument, nowMs: number): WaitInstant {
  if ('ms' in step.wait) return { ok: true, atMs: nowMs + step.wait.ms };
  const evaluated = evaluateExpression(step.wait.until, conditionInput(doc));
  if (!evaluated.ok) return evaluated;
  let value = evaluated.value;
  if (value instanceof Date && Number.isFinite(value.getTime())) return { ok: true, atMs: value.getTime() };
  if (typeof value === 'bigint') value = Number(value);
  if (typeof value === 'number') {
    // Up, not down: a wait never ends before its instant, so a fraction of a millisecond waits for the next whole one.
    return Number.isFinite(value) && value >= 0 ? { ok: true, atMs: Math.ceil(value) } : { ok: false, error: `it gave ${value}, not epoch milliseconds` };
  }
  if (typeof value === 'string') {
    const atMs = RFC_3339.test(value) ? parseRfc3339Up(value) : NaN;
    return Number.isFinite(atMs) ? { ok: true, atMs } : { ok: false, error: `it gave the string ${JSON.stringify(value.slice(0, 60))}, not an RFC 3339 instant such as 2030-01-31T12:00:00Z` };
  }
  return { ok: false, error: `it gave ${value === null ? 'null' : `a ${typeof value}`}, not an RFC 3339 string or epoch milliseconds` };
}

/**
 * An RFC 3339 instant in epoch milliseconds, rounded up: `Date.parse` drops the digits of a
 * fraction past the millisecond, which would end the wait up to 1 ms before the instant it gives.
 */
function parseRfc3339Up(value: string): number {
  const ms = Date.parse(value);
  const beyondMs = /\.\d{3}(\d+)/.exec(value)?.[1] ?? '';
  return /[1-9]/.test(beyondMs) ? ms + 1 : ms;
}

/**
 * Begins the wait step whose record is at `index` (its condition already true): the record is
 * Running with `waitUntil` at the instant and the process sits Pending until then (a `wake` for
 * that time), so the timer is document state only and survives any restart. An instant already
 * past fires at once. An `until` that cannot be evaluated is a permanent failure naming the step.
 * Finishes the draft; `startEntry` starts the next entry when it fires.
 */
export function startWait(draft: ProcessDraft, index: number, why: string, startEntry: StartEntry): TransitionResult {
  const record = draft.step(index);
  const step = entryOf(draft.ctx.workflow, record) as WaitStep;
  const instant = waitInstant(step, draft.doc, draft.ctx.now);
  if (!instant.ok) return conditionFailed(draft, index, `until of wait step ${step.name} failed: ${instant.error}`, why);
  record.state = 'Running';
  record.startedAt = draft.now;
  record.finishedAt = null;
  record.error = null;
  record.waitUntil = new Date(instant.atMs);
  if (instant.atMs <= draft.ctx.now) return fire(draft, index, why, startEntry);
  draft.release(instant.atMs);
  return draft.finish(`${why}; ${step.name} waits until ${record.waitUntil.toISOString()}`);
}

/**
 * A claim of a process whose current record is a Running wait step: at or after its instant the
 * step completes (result `{ firedAt }`) and the next entry starts; a claim before it (the process
 * released earlier for another reason) puts the process back to sleep until the instant.
 * This comparison, not the claim's `notBefore`, is what keeps a wait from ending early: notBefore
 * says when the process may be claimed at all, and a process can be claimable before its wait's
 * instant. Whenever a wake-up comes, the step fires only at `now >= waitUntil`.
 */
export function wakeWait(draft: ProcessDraft, why: string, startEntry: StartEntry): TransitionResult {
  const index = draft.doc.currentStep;
  const record = draft.step(index);
  if (record.state !== 'Running' || !record.waitUntil) return { applied: false, reason: `wait step ${record.name} is ${record.state}, not waiting` };
  const atMs = record.waitUntil.getTime();
  if (atMs > draft.ctx.now) {
    draft.release(atMs);
    return draft.finish(`${why}; ${record.name} still waits until ${record.waitUntil.toISOString()}`);
  }
  return fire(draft, index, why, startEntry);
}

function fire(draft: ProcessDraft, index: number, why: string, startEntry: StartEntry): TransitionResult {
  const record = draft.step(index);
  record.state = 'Completed';
  record.finishedAt = draft.now;
  record.result = { firedAt: draft.now.toISOString() };
  draft.status('StepCompleted', { step: record.name });
  return startEntry(draft, nextEntryIndex(draft.doc.steps, index), `${why}; ${record.name} fired`);
}
