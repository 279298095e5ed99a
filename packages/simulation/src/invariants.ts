import { isTerminal, PROGRESS_STATUSES, type ProcessDocument, type StatusEvent } from '@sas/contracts';
import { checkConditions } from './condition-invariants';
import { checkSignals } from './signal-invariants';
import { RECURRING_EVERY_MS, SIM_PAUSE_CACHE_MS, type AppliedReply, type SimSystem, type WrittenState } from './sim-system';
import { checkWaits } from './wait-invariants';

/** A broken promise of the protocol, with the order it concerns when there is one. */
export interface Violation {
  invariant: string;
  orderId?: string;
  detail: string;
}

const TERMINAL_STATUS: Record<string, string> = { Processed: 'Processed', Compensated: 'Compensated', Canceled: 'Canceled' };

/**
 * Checks what must hold once faults have stopped and the system has settled. Every check reads
 * evidence recorded outside the code under test: the remotes' ledger, the commits that won, the
 * status events the application received, the messages the queues accepted.
 */
export async function checkInvariants(system: SimSystem, orderIds: readonly string[], faultsEndedAt: number): Promise<Violation[]> {
  const violations: Violation[] = [];
  const docs = new Map<string, ProcessDocument>(system.store.list().map((d) => [d.orderId, d]));
  const ledger = system.remote.ledger;

  // Two writers never both win one revision; no expiry is recovered twice.
  const revisions = new Map<string, string>();
  const recoveries = new Map<string, string>();
  for (const c of system.commits) {
    const key = `${c.processId}@${c.expectedRevision}`;
    const first = revisions.get(key);
    if (first !== undefined) violations.push({ invariant: 'one winner per transition', detail: `process ${c.processId} revision ${c.expectedRevision} was committed by ${first} and by ${c.by}` });
    else revisions.set(key, c.by);
    if (c.role === 'supervisor') {
      const expiry = `${c.processId}#${c.attempt}`;
      const earlier = recoveries.get(expiry);
      if (earlier !== undefined) violations.push({ invariant: 'one recovery per expiry', detail: `process ${c.processId} was recovered into attempt ${c.attempt} by ${earlier} and by ${c.by}` });
      else recoveries.set(expiry, c.by);
    }
  }

  // A reply changes a process only when it answers the attempt the process holds (the fence on
  // attempt): the write it made replaced a held document of that attempt, or, for a member of a
  // parallel group, a document in which that member was running under that attempt (its own fence:
  // its siblings' dispatches raise the process's attempt without making its reply stale). Attempts
  // only grow, so a stale reply's writes cannot match.
  for (const r of system.appliedReplies) {
    const fenced = system.commits.slice(r.from, r.to).some((c) => c.processId === r.processId && c.by === r.by && c.prior !== undefined && heldAttempt(c.prior, r));
    if (!fenced) {
      const wrote = system.commits.slice(r.from, r.to).filter((c) => c.processId === r.processId && c.by === r.by);
      const orderId = system.store.inspect((d) => (d._id === r.processId ? d.orderId : undefined)).find((o) => o !== undefined);
      violations.push({ invariant: 'a reply applies only to its own attempt', ...(orderId ? { orderId } : {}), detail: `${r.by} applied a reply of attempt ${r.attempt} for ${r.step} to process ${r.processId}, which held ${wrote.map((c) => describeHeld(c.prior, r.step)).join(', ') || 'nothing'}` });
    }
  }

  // No dispatch to a paused agent, except by an engine whose reading of the pauses predates the pause.
  // A dispatch raises the attempt: a write in Processing that keeps it (a signal kept while a step is
  // in flight, a member's reply while its sibling runs) dispatched nothing. A group member dispatched
  // by the write carries the new attempt as its own.
  for (const c of system.commits) {
    if (c.state !== 'Processing' && c.state !== 'Compensating' && c.state !== 'Pending') continue;
    if (c.prior !== undefined && c.attempt === c.prior.attempt) continue;
    const members = c.steps.filter((s) => s.group !== undefined && s.attempt === c.attempt && s.state === 'Running');
    const sent = members.length > 0 ? members.map((s) => ({ step: s.name, agent: s.agent })) : c.state === 'Pending' ? [] : [{ step: c.step, agent: c.agent }];
    for (const d of sent) {
      const w = system.pauseWindows.find((p) => p.agent === d.agent && c.at > p.from + SIM_PAUSE_CACHE_MS && c.at < p.to);
      if (w) violations.push({ invariant: 'no dispatch to a paused agent', detail: `process ${c.processId} dispatched ${d.step ?? '?'} to ${d.agent ?? '?'} at +${c.at - w.from} ms into its pause (by ${c.by})` });
    }
  }

  for (const orderId of orderIds) {
    const doc = docs.get(orderId);
    if (!doc) {
      violations.push({ invariant: 'no order lost', orderId, detail: 'its submission reached the queue but no process exists' });
      continue;
    }
    if (!isTerminal(doc.state)) violations.push({ invariant: 'every order ends', orderId, detail: `still ${doc.state} (step ${doc.currentStep}, attempt ${doc.attempt}, reason ${doc.reason ?? '-'}) after the faults stopped` });
    if ((doc.outbox ?? []).length > 0) violations.push({ invariant: 'outboxes drain', orderId, detail: `${(doc.outbox ?? []).length} entries still owed` });
    checkEffects(system, doc, ledger, violations);
    checkNothingRunning(doc, violations);
    checkStatusStream(system, doc, violations);
    const order = system.order(orderId);
    if (order) {
      checkConditions(doc, order.payload, ledger, violations);
      checkWaits(doc, order.payload, system.commits, violations);
      checkSignals(doc, system.signalsSent, system.signalAnswers, violations);
    }
  }
  violations.push(...(await checkJobs(system, faultsEndedAt)));
  for (const dead of system.bus.deadLetters()) violations.push({ invariant: 'no valid message dead-lettered', detail: `${dead.queue}: ${dead.reason}` });
  return violations;
}

/** Whether the document a reply's write replaced held the attempt the reply answers (see the reply invariant). */
function heldAttempt(prior: WrittenState, r: AppliedReply): boolean {
  const member = prior.steps.find((s) => s.name === r.step);
  if (member?.group !== undefined && member.attempt === r.attempt && (member.state === 'Running' || member.state === 'Compensating')) return true;
  return (prior.state === 'Processing' || prior.state === 'Compensating') && prior.attempt === r.attempt;
}

function describeHeld(prior: WrittenState | undefined, step: string): string {
  if (!prior) return '? attempt ?';
  const member = prior.steps.find((s) => s.name === step);
  const own = member?.group !== undefined ? ` (${step} ${member.state}, its own attempt ${member.attempt ?? '-'})` : '';
  return `${prior.state} attempt ${prior.attempt}${own}`;
}

/** Steps that call a remote: task steps and group members, not wait or signal steps. */
function callsRemote(step: ProcessDocument['steps'][number]): boolean {
  return step.kind === undefined || step.kind === 'task';
}

function checkEffects(system: SimSystem, doc: ProcessDocument, ledger: SimSystem['remote']['ledger'], violations: Violation[]): void {
  const { orderId } = doc;
  const mine = ledger.filter((e) => e.orderId === orderId);
  for (const step of doc.steps) {
    if (!callsRemote(step)) continue;
    const forward = mine.filter((e) => e.step === step.name && e.mode === 'forward');
    const undos = mine.filter((e) => e.step === step.name && e.mode === 'compensate' && e.kind === 'applied');
    if (forward.length > 1) violations.push({ invariant: 'at most one effect per step', orderId, detail: `${step.name} took effect ${forward.length} times (keys ${forward.map((e) => e.idempotencyKey).join(', ')})` });
    if (undos.length > 1) violations.push({ invariant: 'at most one undo per step', orderId, detail: `${step.name} was undone ${undos.length} times` });
    const effect = forward[0];
    const undo = undos[0];
    if (effect && undo && undo.seq < effect.seq) violations.push({ invariant: 'no undo before its forward effect', orderId, detail: `${step.name}: undone at #${undo.seq}, took effect later at #${effect.seq}` });
    if (doc.state === 'Processed' && step.state !== 'Skipped') {
      if (!effect) violations.push({ invariant: 'a processed order took every effect', orderId, detail: `${step.name} is ${step.state} but its remote never applied it` });
      else if (JSON.stringify(step.result) !== JSON.stringify(effect.result)) violations.push({ invariant: 'results are the remote\'s', orderId, detail: `${step.name} holds ${JSON.stringify(step.result)}, the remote answered ${JSON.stringify(effect.result)}` });
      if (undo) violations.push({ invariant: 'a processed order is not undone', orderId, detail: `${step.name} was undone` });
    }
    if ((doc.state === 'Compensated' || doc.state === 'Canceled') && effect && !undo) violations.push({ invariant: 'every effect of an undone order is undone', orderId, detail: `${step.name} took effect (#${effect.seq}) and was never undone; the order ended ${doc.state}` });
    // An undo of a step whose forward call may have left is documented (a no-op when it never
    // landed); one of a step that was never even claimed to run is not.
    const started = system.commits.some(
      (c) => c.processId === doc._id && c.mode === 'forward' && ((c.step === step.name && c.state === 'Processing') || c.steps.some((s) => s.name === step.name && s.state === 'Running')),
    );
    for (const u of mine.filter((e) => e.step === step.name && e.mode === 'compensate')) {
      if (!started) violations.push({ invariant: 'no undo of a step never started', orderId, detail: `${step.name} was undone (#${u.seq}) but never claimed to run` });
    }
  }
}

/**
 * A finished process shows no step still running: the dashboard and `sas status` read the record
 * states, and a wait or signal step cut short by a cancel must not look as if it still waited.
 */
function checkNothingRunning(doc: ProcessDocument, violations: Violation[]): void {
  if (!isTerminal(doc.state)) return;
  for (const step of doc.steps) {
    if (step.state === 'Running') violations.push({ invariant: 'no step of a finished process is Running', orderId: doc.orderId, detail: `${step.name} (${step.kind ?? 'task'}) is Running; the process is ${doc.state}` });
  }
}

function checkStatusStream(system: SimSystem, doc: ProcessDocument, violations: Violation[]): void {
  if (!doc.replyTo) return;
  const events = system.statuses.get(doc.orderId) ?? [];
  const terminal = new Map<string, string>();
  for (const e of events) if (TERMINAL_STATUS[e.status] !== undefined) terminal.set(e.eventId ?? `${e.status}@${e.at}`, e.status);
  const expected = TERMINAL_STATUS[doc.state];
  if (expected === undefined) return;
  const kinds = [...terminal.values()];
  if (kinds.length !== 1) violations.push({ invariant: 'exactly one terminal status event', orderId: doc.orderId, detail: `the application received ${kinds.length} terminal events (${kinds.join(', ') || 'none'}); the process is ${doc.state}` });
  else if (kinds[0] !== expected) violations.push({ invariant: 'the terminal status matches the process', orderId: doc.orderId, detail: `the application was told ${kinds[0]}, the process is ${doc.state}` });
  checkStatusChoice(system, doc, events, violations);
}

/**
 * An order that asked for `final` status events gets no progress event; one that did not gets a
 * `StepCompleted` for every step of a Processed order (each step succeeded once, in a commit
 * whose outbox is delivered at least once).
 */
function checkStatusChoice(system: SimSystem, doc: ProcessDocument, events: readonly StatusEvent[], violations: Violation[]): void {
  const invariant = 'an order gets the status events it asked for';
  if (system.finalStatusOrders.has(doc.orderId)) {
    const progress = events.filter((e) => PROGRESS_STATUSES.includes(e.status));
    if (progress.length > 0) violations.push({ invariant, orderId: doc.orderId, detail: `it asked for final events only and received ${progress.map((e) => e.status).join(', ')}` });
  } else if (doc.state === 'Processed') {
    // A skipped entry is told as one StepSkipped naming it (a group by its name), every other step as StepCompleted.
    const told = new Set(events.filter((e) => e.status === 'StepCompleted' || e.status === 'StepSkipped').map((e) => `${e.status} ${e.step ?? ''}`));
    const expected = new Set(doc.steps.map((s) => (s.state === 'Skipped' ? `StepSkipped ${s.group ?? s.name}` : `StepCompleted ${s.name}`)));
    const missing = [...expected].filter((e) => !told.has(e));
    if (missing.length > 0) violations.push({ invariant, orderId: doc.orderId, detail: `it asked for every event and received no ${missing.join(', ')}` });
  }
}

/**
 * Each fire time fires once: no firing recorded twice or failed (the simulation's send errors are
 * all transient), every occurrence due before the faults stopped fired or was folded into a late
 * firing's missed range, and each firing's trigger reached the application.
 */
async function checkJobs(system: SimSystem, faultsEndedAt: number): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const key of system.jobKeys) {
    const job = await system.jobStore.getByKey(key);
    if (!job) {
      violations.push({ invariant: 'jobs fire', detail: `job ${key} is gone` });
      continue;
    }
    const history = await system.jobStore.statusHistory(job._id);
    const firings = new Map<number, { missedSince: number | null }>();
    for (const e of history) {
      if (!e.fireTime) continue;
      const at = e.fireTime.getTime();
      if (e.executionStatus === 'FAILED') {
        violations.push({ invariant: 'a firing fails only when its trigger cannot be sent', detail: `job ${key} fire time ${e.fireTime.toISOString()} FAILED: ${e.reason ?? '?'}` });
        continue;
      }
      if (firings.has(at)) violations.push({ invariant: 'each fire time fires once', detail: `job ${key} fire time ${e.fireTime.toISOString()} fired twice` });
      firings.set(at, { missedSince: e.missedSince ? e.missedSince.getTime() : null });
    }
    for (const at of firings.keys()) {
      const received = system.triggers.get(`${key}@${at}`) ?? 0;
      // Delivery to the application is at least once (it tells occurrences apart by fireTime).
      if (received === 0) violations.push({ invariant: 'each fire time fires once', detail: `job ${key} fire time ${new Date(at).toISOString()} fired but its trigger never reached the application` });
    }
    for (const due of dueOccurrences(job.createdAt.getTime(), key, system, faultsEndedAt)) {
      const covered = firings.has(due) || [...firings].some(([at, f]) => f.missedSince !== null && f.missedSince <= due && due < at);
      if (!covered) violations.push({ invariant: 'each fire time fires once', detail: `job ${key} never fired for ${new Date(due).toISOString()}` });
    }
    for (const failure of system.jobFailures) violations.push({ invariant: 'a firing fails only when its trigger cannot be sent', detail: `failure command received: ${failure}` });
  }
  return violations;
}

/** Occurrences due by `until`, computed here from the scenario rather than by the code under test. */
function dueOccurrences(createdAt: number, key: string, system: SimSystem, until: number): number[] {
  if (key === 'once') return system.oneOffAt !== null && system.oneOffAt <= until ? [system.oneOffAt] : [];
  const due: number[] = [];
  for (let t = Math.floor(createdAt / RECURRING_EVERY_MS) * RECURRING_EVERY_MS + RECURRING_EVERY_MS; t <= until; t += RECURRING_EVERY_MS) due.push(t);
  return due;
}
