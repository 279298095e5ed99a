import type { AgentPauseDocument } from '@sas/contracts';
import type { Clock } from '@sas/runtime';
import type { PausedAgents } from './paused-agents';

/** One reading of the `agent_pauses` documents. */
interface AgentPauses {
  paused: ReadonlySet<string>;
  /** Resumed agents, with when their current resume began. */
  resumed: ReadonlyMap<string, Date>;
}

/** Dependencies of {@link PausedAgentsCache}. */
export interface PausedAgentsCacheDeps {
  /** Where pauses are kept (the `agent_pauses` collection, or memory). */
  store: { list(): Promise<AgentPauseDocument[]> };
  clock: Clock;
  /**
   * How long one reading is used: the longest a pause can go unseen by this process. @default 1000
   */
  ttlMs?: number;
  /**
   * Told when a reading differs from the one before (the first reading is compared with "none
   * paused"), so a log says when this process started (or stopped) holding an agent's work.
   */
  onChange?: (paused: ReadonlySet<string>) => void;
}

/**
 * The paused agents, read from the store at most once per `ttlMs` (concurrent callers share one
 * read), so a claim or a reply costs no query of its own. The price is staleness: for up to
 * `ttlMs` after a pause commits, this process may still dispatch to the paused agent (that
 * dispatch is in flight and finishes or is recovered as usual); and for up to `ttlMs` after a
 * resume it may still hold work for it (the release of held work picks that up). A reading that
 * fails is not cached: the caller's transition fails and is retried, as for any store error.
 */
export class PausedAgentsCache implements PausedAgents {
  private cached: AgentPauses & { readAt: number } | undefined;
  private reading: Promise<AgentPauses> | undefined;
  /** The last reading's paused agents, kept across `invalidate` so a change is told once. */
  private lastPaused: ReadonlySet<string> = new Set();

  constructor(private readonly deps: PausedAgentsCacheDeps) {}

  async current(): Promise<ReadonlySet<string>> {
    return (await this.reading_()).paused;
  }

  /** Agents that were paused and are running again (their held work may still wait for release), with when they were resumed. */
  async resumed(): Promise<ReadonlyMap<string, Date>> {
    return (await this.reading_()).resumed;
  }

  /** Forgets the reading, so the next caller reads the store (after this process changed a pause itself). */
  invalidate(): void {
    this.cached = undefined;
  }

  private reading_(): Promise<AgentPauses> {
    const now = this.deps.clock.now();
    if (this.cached && now - this.cached.readAt < (this.deps.ttlMs ?? 1000)) return Promise.resolve(this.cached);
    this.reading ??= this.read(now).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(startedAt: number): Promise<AgentPauses> {
    const docs = await this.deps.store.list();
    const pauses = { paused: new Set(docs.filter((p) => p.paused).map((p) => p._id)), resumed: new Map(docs.filter((p) => !p.paused).map((p) => [p._id, p.since])) };
    const before = this.cached?.paused ?? this.lastPaused;
    // Dated when the read started: a pause committed during the read may be missing from it.
    this.cached = { ...pauses, readAt: startedAt };
    this.lastPaused = pauses.paused;
    if (this.deps.onChange && (before.size !== pauses.paused.size || [...pauses.paused].some((a) => !before.has(a)))) this.deps.onChange(pauses.paused);
    return pauses;
  }
}
