/**
 * One instance of a component in the simulation (a scheduler, an agent, the application...). A
 * crash kills the instance: its calls in flight never return, its timers never fire, and its
 * in-memory state is gone. A restart is a new actor with the next generation.
 */
export class SimActor {
  alive = true;
  /** `scheduler-2.g3`: also the component's instanceId, so history and locks name it. */
  readonly name: string;
  /** Called once when the actor crashes, by whoever needs to know (the bus stalls its jobs). */
  private readonly crashListeners: (() => void)[] = [];

  constructor(
    /** The role and slot, e.g. `scheduler-2`; stable across restarts. */
    readonly slot: string,
    readonly generation: number,
    /** Whether faults may crash it (the application and operator under test are not crashed). */
    readonly crashable: boolean,
  ) {
    // Built once: every commit, write id and trace line reads it.
    this.name = `${slot}.g${generation}`;
  }

  onCrash(listener: () => void): void {
    this.crashListeners.push(listener);
  }

  kill(): void {
    if (!this.alive) return;
    this.alive = false;
    for (const listener of this.crashListeners) listener();
  }
}
