import { ProcessState } from '@sas/contracts';

/** Processes per state, as `sas up`'s live line shows them. */
export type StateCounts = Readonly<Record<string, number>>;

/** The order states are listed in: the contract's order (the way a process goes). */
const ORDER: readonly string[] = ProcessState.options;

/** `processes: 3 · Processing 1 · Processed 2`: every state with at least one process, in {@link ORDER}. */
export function renderStateCounts(counts: StateCounts): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const rank = (s: string): number => (ORDER.includes(s) ? ORDER.indexOf(s) : ORDER.length);
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([state, n]) => `${state} ${n}`);
  return `processes: ${total}${parts.length > 0 ? ` · ${parts.join(' · ')}` : ''}`;
}
