/** The agents an operator paused, as the engine reads them before each transition. */
export interface PausedAgents {
  /** The paused agents now, possibly a little stale (see {@link PausedAgentsCache}); throws when they cannot be read. */
  current(): Promise<ReadonlySet<string>>;
}
