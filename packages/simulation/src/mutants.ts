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
  /**
   * The invariant that must report it. Without it any violation counts as found; with it, a mutant
   * that only broke something else (a crash of the run, another invariant) is not taken for found.
   */
  breaks?: string;
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
  {
    name: 'condition-ignored',
    description: 'a false condition ignored: the entry runs (a day trip books the hotel)',
    file: 'packages/workflow/dist/start-stage.js',
    find: /if \(!outcome\.value\) \{/,
    replace: 'if (false) {',
    found: true,
    breaks: 'a skipped step is never called',
  },
  {
    name: 'signal-repeat-applied',
    description: 'a signal sent again (same id) taken for a new one: applied twice',
    file: 'packages/workflow/dist/apply-signal.js',
    find: /doc\.signals\?\.find\(\(s\) => s\.id === input\.signalId\)/,
    replace: 'doc.signals?.find((s) => s.id === input.signalId && false)',
    found: true,
    breaks: 'a signal is applied once',
  },
  {
    name: 'wait-ends-early',
    description: "a wait step's instant computed short (half its ms): it fires before its instant",
    file: 'packages/workflow/dist/wait-step.js',
    find: /atMs: nowMs \+ step\.wait\.ms \}/,
    replace: 'atMs: nowMs + step.wait.ms / 2 }',
    found: true,
    breaks: 'a wait never ends before its instant',
  },
  {
    name: 'no-member-fence',
    description: "a group member's own fence removed: a late reply of a member's earlier attempt is applied",
    file: 'packages/workflow/dist/parallel-group.js',
    find: /if \(step\.attempt !== reply\.attempt\)/,
    replace: 'if (false)',
    found: true,
    breaks: 'a reply applies only to its own attempt',
  },
  {
    name: 'group-undo-skips-members',
    description: "a failed group's undo starts before the group: its members' effects stay",
    file: 'packages/workflow/dist/parallel-group.js',
    find: /doc\.currentStep = members\[members\.length - 1\] \?\? doc\.currentStep;/,
    replace: 'doc.currentStep = (members[0] ?? doc.currentStep) - 1;',
    found: true,
    breaks: 'every effect of an undone order is undone',
  },
  {
    name: 'wait-left-running',
    description: 'a wait or signal step still waiting when the undo begins is left Running in the finished process',
    file: 'packages/workflow/dist/compensation.js',
    find: /withdrawWaits\(draft\);/,
    replace: '',
    found: true,
    breaks: 'no step of a finished process is Running',
  },
];

/** The mutant called `name`, or an error listing the known ones. */
export function mutantNamed(name: string): Mutant {
  const found = MUTANTS.find((m) => m.name === name);
  if (!found) throw new Error(`no mutant '${name}'; known: ${MUTANTS.map((m) => m.name).join(', ')}`);
  return found;
}
