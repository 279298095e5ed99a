import type { ExitRecord, ManagedProcess } from '@sas/stack';
import { RestartPolicy, type RestartPolicyOptions } from './restart-policy';

/** What {@link UpSupervisor} tells the console, and how it learns the time. */
export interface UpSupervisorOptions {
  /** Lines for the user: a child that died, its last lines, its restart. */
  report: (line: string) => void;
  /** A child is crash-looping: `sas up` must stop (the message says which child and where its log is). */
  crashLoop: (message: string) => void;
  /** After every successful restart: the children's pids changed (`sas up` records them in its data folder). */
  restarted: (name: string) => void;
  /** Where a child's log file is, for the messages. */
  logFileOf: (name: string) => string | undefined;
  policy?: RestartPolicyOptions;
  now?: () => number;
}

/** How many of a dead child's last lines are printed. */
const LAST_LINES = 5;

/**
 * `sas up` as a supervisor of its own processes (decision 133): a child that exits without being
 * asked to is reported loudly (exit code or signal, its last lines, its log file) and restarted after
 * the {@link RestartPolicy}'s back-off, while the others keep running; a crash loop stops `sas up`
 * with a message saying so. Once {@link stop} is called (Ctrl-C), exits are expected and nothing is
 * restarted.
 */
export class UpSupervisor {
  private readonly policies = new Map<string, RestartPolicy>();
  private readonly restarting = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopping = false;
  private readonly now: () => number;

  constructor(private readonly options: UpSupervisorOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Restarts done so far, by child name. */
  restartCounts(): Record<string, number> {
    return Object.fromEntries([...this.policies].map(([name, policy]) => [name, policy.restartCount]));
  }

  /**
   * Called for every exit of every child, with how to start that child again (and wait until it
   * serves). An expected exit (a stop that was asked for) and any exit once stopping are ignored.
   */
  onExit(record: ExitRecord, proc: ManagedProcess, restart: () => Promise<void>): void {
    if (this.stopping || record.expected || this.restarting.has(proc.name)) return;
    const how = record.signal !== null ? `killed by ${record.signal}` : `exit code ${String(record.code)}`;
    this.options.report(`!! ${proc.name} died (${how}). Its last lines:`);
    for (const line of proc.lines.slice(-LAST_LINES)) this.options.report(`!!   ${line.text}`);
    this.decide(proc, restart);
  }

  /** From now on every exit is expected: pending restarts are dropped, none are started. */
  stop(): void {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private decide(proc: ManagedProcess, restart: () => Promise<void>): void {
    let policy = this.policies.get(proc.name);
    if (policy === undefined) this.policies.set(proc.name, (policy = new RestartPolicy(this.options.policy)));
    const decision = policy.onExit(this.now());
    const log = this.options.logFileOf(proc.name);
    if (decision.kind === 'crash-loop') {
      this.options.crashLoop(
        `${proc.name} died ${decision.exits} times within ${decision.windowMs / 1000} s: a crash loop, which a restart will not mend. ` +
          `sas up stops every service; see what ${log === undefined ? 'its last lines say' : `its log says (${log})`}, fix it, and run sas up again: nothing is lost.`,
      );
      return;
    }
    this.options.report(`!! restarting ${proc.name} in ${decision.delayMs / 1000} s (restart ${decision.restart}); the other services keep running${log === undefined ? '' : `. Log: ${log}`}`);
    this.restarting.add(proc.name);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopping) return;
      void this.attempt(proc, restart);
    }, decision.delayMs);
    this.timers.add(timer);
  }

  private async attempt(proc: ManagedProcess, restart: () => Promise<void>): Promise<void> {
    try {
      await restart();
      this.restarting.delete(proc.name);
      if (this.stopping) return;
      this.options.report(`   ${proc.name} is back (pid ${String(proc.pid)})`);
      this.options.restarted(proc.name);
    } catch (e) {
      this.restarting.delete(proc.name);
      if (this.stopping) return;
      this.options.report(`!! ${proc.name} did not come back: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      // Not serving in time but still running: stop it before the next try, which starts it anew.
      await proc.stop(2000);
      if (!this.stopping) this.decide(proc, restart);
    }
  }
}
