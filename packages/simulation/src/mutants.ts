/**
 * Bugs the simulation must find, each reintroduced on purpose by rewriting one line of a built
 * file as it loads (see {@link installMutant}): production code keeps no switch for them. Each
 * names the guarantee it breaks; `pnpm simulate --mutant <name>` runs seeds until one fails.
 */
export interface Mutant {
  name: string;
  /** What the rewrite removes, in the words of the correctness issue. */
  description: string;
  /** The built file, from the workspace root. */
  file: string;
  /** Must match exactly once, so a mutant that no longer fits the code fails loudly instead of testing nothing. */
  find: RegExp;
  replace: string;
  /**
   * Whether the simulation finds it today (its test then requires it within 10,000 seeds). False
   * names a gap to close, said in docs/simulation.md, never a test to skip quietly.
   */
  found: boolean;
}

export const MUTANTS: readonly Mutant[] = [
  {
    name: 'no-reply-fence',
    description: 'the reply fence on `attempt` removed: a late reply of an earlier attempt is applied',
    file: 'packages/workflow/dist/apply-reply.js',
    find: /if \(doc\.attempt !== reply\.attempt\)/,
    replace: 'if (false)',
    found: true,
  },
  {
    name: 'no-revision-condition',
    description: 'the revision condition on commits removed: two writers both win one transition',
    file: 'packages/store/dist/in-memory-process-store.js',
    find: /(async commit\(next, expectedRevision\) \{[\s\S]*?)if \(!stored \|\| stored\.revision !== expectedRevision\)/,
    replace: '$1if (!stored)',
    found: true,
  },
  {
    name: 'no-cancel-hold',
    description: 'the cancel-in-flight race: an undo sent while the forward call may still be in flight',
    file: 'packages/workflow/dist/operator-actions.js',
    find: /const holdMs = Math\.max\(0, inFlightUntil - ctx\.now\);/,
    replace: 'const holdMs = 0 * inFlightUntil;',
    found: true,
  },
  {
    name: 'supervisor-skips-for-ever',
    description: "the supervisor's skip-for-ever: a process whose recovery failed once is never swept again",
    file: 'services/supervisor/dist/supervisor.js',
    find: /const skipped = new Set\(\);/,
    replace: 'const skipped = (this.skippedForEver ??= new Set());',
    found: true,
  },
  {
    name: 'job-failed-on-transient-send',
    description: 'a job firing settled as FAILED on a transient send error instead of retried',
    file: 'packages/jobs/dist/job-firing.js',
    find: /if \(error instanceof runtime_1\.PermanentError\)(\s+progress\.failedReason = `could not send the trigger)/,
    replace: 'if (true)$1',
    found: true,
  },
];

/** The mutant called `name`, or an error listing the known ones. */
export function mutantNamed(name: string): Mutant {
  const found = MUTANTS.find((m) => m.name === name);
  if (!found) throw new Error(`no mutant '${name}'; known: ${MUTANTS.map((m) => m.name).join(', ')}`);
  return found;
}
