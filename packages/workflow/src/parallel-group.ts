import { holdForPause, isPaused } from './pause-hold';
import type { ProcessDraft } from './process-draft';
import type { TransitionResult } from './transition-result';
import { entryRecords } from './workflow-entries';

/**
 * Begins the parallel group whose first member is at `index`: every member whose agent is not
 * paused is dispatched in this one transition, each with its own fence, complete-by and
 * idempotency key. Members of a paused agent stay NotStarted until it is resumed; when every
 * member's agent is paused the process is held as for a single step.
 */
export function startGroup(draft: ProcessDraft, index: number, why: string): TransitionResult {
  const members = entryRecords(draft.doc.steps, index);
  const ready = members.filter((i) => !isPaused(draft.ctx, draft.step(i).agent));
  const first = draft.step(members[0] ?? index);
  if (ready.length === 0) return holdForPause(draft, first.agent, why);
  for (const i of ready) draft.dispatch(i);
  const names = ready.map((i) => draft.step(i).name);
  const held = members.filter((i) => !ready.includes(i)).map((i) => draft.step(i).name);
  const waiting = held.length > 0 ? `; ${held.join(', ')} held: agent paused` : '';
  return draft.finish(`${why}; dispatching group ${first.group ?? first.name}: ${names.join(', ')}${waiting}`);
}
