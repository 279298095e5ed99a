import { isTerminal, type ProcessDocument, type StepRecord } from '@sas/contracts';

/**
 * What a step runs or waits for, as `sas status` shows it: a task's `agent.operation`, a wait
 * step's instant once it is known (`wait until …`), a signal step's name and, while it waits, its
 * deadline. A wait or signal record has no agent, so an agent column alone would show nothing.
 */
function stepWhat(step: StepRecord, doc: Pick<ProcessDocument, 'state' | 'mode'>): string {
  if (step.kind === 'wait') return step.waitUntil ? `wait until ${step.waitUntil.toISOString()}` : 'wait';
  if (step.kind === 'signal') {
    const named = `signal '${step.signal ?? '?'}'`;
    // Only while it waits: after a cancel, documents written before decision 127 still say Running.
    const waiting = step.state === 'Running' && doc.mode === 'forward' && !isTerminal(doc.state);
    return waiting && step.waitUntil ? `${named} (times out ${step.waitUntil.toISOString()})` : named;
  }
  return `${step.agent}.${step.operation}`;
}

/**
 * A step's state as shown: a step still `Running` in a process that stopped (in Error for an
 * operator, or finished) is not running: a task's outcome is unknown (`InDoubt`: its complete-by
 * passed with no answer, so its effect may or may not have happened), a wait or signal step no
 * longer waits (`Stopped`). The stored state is left as the engine keeps it.
 */
function shownState(step: StepRecord, doc: Pick<ProcessDocument, 'state'>): string {
  if (step.state !== 'Running' || (!isTerminal(doc.state) && doc.state !== 'Error')) return step.state;
  return step.kind === 'wait' || step.kind === 'signal' ? 'Stopped' : 'InDoubt';
}

/** One line per step: `>` at the current one, name, state, what it runs or waits for (aligned), dispatches and error. */
export function renderStepLines(doc: Pick<ProcessDocument, 'state' | 'mode' | 'steps' | 'currentStep'>): string[] {
  const whats = doc.steps.map((s) => stepWhat(s, doc));
  const width = Math.max(0, ...whats.map((w) => w.length));
  return doc.steps.map((s, i) => {
    const error = s.error ? `  error: ${s.error}` : '';
    return `  ${i === doc.currentStep ? '>' : ' '} ${s.name.padEnd(20)} ${shownState(s, doc).padEnd(12)} ${(whats[i] ?? '').padEnd(width)}  dispatches ${s.dispatches}${error}`;
  });
}
