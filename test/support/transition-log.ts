import type { OutputLine } from '@sas/stack';

/**
 * What the services' own logs say about committed transitions, for the "no double claim" check.
 *
 * The store cannot show a double claim: two winners of one claim would write the same revision,
 * the same history `_id` and the same dispatch job id, so the second copy is deduplicated before
 * any test looks. Each engine logs every transition it committed (the line after its conditional
 * commit, with `processId`, `revision`, `from` and `to`), and those lines are per process run:
 * nothing merges them.
 */

/** One transition a service process says it committed. */
export interface CommittedTransition {
  processId: string;
  /** The revision the commit wrote. */
  revision: number;
  from: string;
  to: string;
  /** The process run that wrote it, e.g. `scheduler-1 run 2`. */
  writer: string;
}

/** The committed transitions in these lines (the engine's commit lines; any other line is skipped). */
export function committedTransitions(lines: readonly OutputLine[]): CommittedTransition[] {
  const commits: CommittedTransition[] = [];
  for (const line of lines) {
    const json = line.json;
    if (!json) continue;
    const { processId, revision, from, to } = json;
    if (typeof processId !== 'string' || typeof revision !== 'number' || typeof from !== 'string' || typeof to !== 'string') continue;
    commits.push({ processId, revision, from, to, writer: `${line.service} run ${line.run}` });
  }
  return commits;
}

/**
 * Every (process, revision) committed more than once, e.g.
 * `process p1 revision 4 committed 2 times: scheduler-1 run 1 (Pending→Processing), scheduler-2 run 1 (Pending→Processing)`.
 * A revision is written once by exactly one conditional commit, so any repeat is a double claim.
 */
export function doubleCommits(commits: readonly CommittedTransition[]): string[] {
  const byRevision = new Map<string, CommittedTransition[]>();
  for (const commit of commits) {
    const key = `process ${commit.processId} revision ${commit.revision}`;
    byRevision.set(key, [...(byRevision.get(key) ?? []), commit]);
  }
  return [...byRevision]
    .filter(([, same]) => same.length > 1)
    .map(([key, same]) => `${key} committed ${same.length} times: ${same.map((c) => `${c.writer} (${c.from}→${c.to})`).join(', ')}`);
}

/**
 * Revisions of these processes that no commit line accounts for (every revision from 1, the
 * first claim, up to the stored one), e.g. `order o-1 revision 3`. Empty means the log evidence
 * is complete, so {@link doubleCommits} looked at every transition and was not vacuous.
 */
export function unloggedRevisions(
  commits: readonly CommittedTransition[],
  processes: readonly { _id: string; orderId: string; revision: number }[],
): string[] {
  const seen = new Set(commits.map((c) => `${c.processId}#${c.revision}`));
  return processes.flatMap((p) =>
    Array.from({ length: p.revision }, (_, i) => i + 1)
      .filter((revision) => !seen.has(`${p._id}#${revision}`))
      .map((revision) => `order ${p.orderId} revision ${revision}`),
  );
}
