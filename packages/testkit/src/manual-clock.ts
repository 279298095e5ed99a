/**
 * A clock the test moves by hand (`clock.t += 5000`), so component tests reach deadlines such as
 * complete-by without waiting. Satisfies `@sas/runtime`'s `Clock` by shape. `now` is a bound
 * arrow function, so it keeps working when a component takes it off the object.
 *
 * @example
 * ```ts
 * const clock = new ManualClock(Date.UTC(2030, 0, 1));
 * const supervisor = new Supervisor({ clock, ... });
 * clock.t += COMPLETE_BY_MS;
 * await supervisor.sweep();
 * ```
 */
export class ManualClock {
  /** The current time, in milliseconds since the Unix epoch; tests assign it. */
  t: number;

  constructor(t: number) {
    this.t = t;
  }

  /** Milliseconds since the Unix epoch: whatever `t` holds. */
  readonly now = (): number => this.t;
}
