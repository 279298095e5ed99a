import { MAX_SIGNALS_PER_PROCESS, isTerminal, stepResultProblem, type ProcessDocument, type ReceivedSignal } from '@sas/contracts';
import type { ProcessInput } from './process-input';
import { ProcessDraft } from './process-draft';
import { consumeSignal } from './signal-step';
import type { TransitionContext } from './transition-context';
import type { TransitionResult } from './transition-result';

/** A signal as the state machine sees it. */
export type SignalInput = Extract<ProcessInput, { type: 'signal' }>;

/**
 * A signal sent from outside. Decided inside the transition, so a signal racing a claim of the
 * step's timeout, an operator's cancel or a redelivery of itself is settled by whichever commits
 * first, and the loser is answered from what is then committed:
 *
 * - a repeat of a signal id the process already has is not applied again; it is answered as the
 *   first one was (`alreadyApplied`), whatever happened to the process since;
 * - a finished process, or one being undone, does not take it ("process is Compensated; signal not used");
 * - the current entry is a Running signal step waiting for this name: the step completes with the
 *   signal's data as its result and the next entry starts;
 * - otherwise it is kept (at most `MAX_SIGNALS_PER_PROCESS`) until a signal step of its name comes up.
 */
export function applySignal(doc: ProcessDocument, input: SignalInput, ctx: TransitionContext): TransitionResult {
  const prior = doc.signals?.find((s) => s.id === input.signalId);
  if (prior) {
    const then = prior.consumedBy ? `consumed by ${prior.consumedBy}` : 'kept, not consumed yet';
    const message = `signal ${input.signalId} (${prior.name}) was received at ${prior.at.toISOString()} and ${then}; counted once`;
    return { applied: false, reason: message, alreadyApplied: message };
  }
  if (isTerminal(doc.state)) return { applied: false, reason: `process is ${doc.state}; signal not used` };
  if (doc.mode === 'compensate') return { applied: false, reason: `process is being undone (${doc.state}); signal not used` };
  const problem = input.data === null ? null : stepResultProblem(input.data);
  if (problem) return { applied: false, reason: `signal ${input.name}: ${problem.replace('the result', 'the data')}; signal not used` };
  const kept = doc.signals ?? [];
  if (kept.length >= MAX_SIGNALS_PER_PROCESS) {
    return { applied: false, reason: `process already keeps ${kept.length} signals, the most it may; signal not used (a process needs few: check the sender)` };
  }
  const draft = new ProcessDraft(doc, ctx);
  const signal: ReceivedSignal = { id: input.signalId, name: input.name, data: input.data, at: draft.now, consumedBy: null };
  draft.doc.signals = [...(draft.doc.signals ?? []), signal];
  const from = `signal ${input.name} (${input.signalId}) from ${input.by}`;
  const index = draft.doc.currentStep;
  const current = draft.step(index);
  if (current.kind === 'signal' && current.state === 'Running' && current.signal === input.name) {
    return consumeSignal(draft, index, signal, from);
  }
  const waiting = draft.doc.steps.findIndex((s, i) => i >= index && s.kind === 'signal' && s.signal === input.name && (s.state === 'NotStarted' || s.state === 'Failed'));
  const awaited = draft.doc.steps[waiting];
  return draft.finish(awaited ? `${from} kept until step ${awaited.name} is reached` : `${from} kept; no step waits for it now`);
}
