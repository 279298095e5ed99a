import { RedisUnavailableError } from '@sas/runtime';
import type { SimActor } from './sim-actor';
import { SimClock } from './sim-clock';
import { seededRandom, type SeededRandom } from './seeded-random';

/** What kind of call an awaited call is, which decides the faults it can meet. */
export type CallKind = 'store' | 'bus' | 'remote';

/** How often faults strike while they are switched on. */
export interface FaultRates {
  /** Chance that an actor crashes at one of its awaited calls (before or after the call takes effect). */
  crash: number;
  /** Chance that a store or bus call fails transiently (before or after it took effect). */
  transient: number;
}

interface PendingCall {
  actor: SimActor;
  label: string;
  kind: CallKind;
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * A store call's simulated failure, named as the MongoDB driver names a dropped connection, so
 * that the consumers classify it as the real ones do (`mongoTransientReason`: retried without
 * spending a delivery, never dead-lettered).
 */
class SimulatedStoreFault extends Error {
  override readonly name = 'MongoNetworkError';
}

/** How often the run loop takes a real macrotask turn (see {@link SimWorld.drain}). */
const TURN_EVERY = 1024;

/**
 * The kernel of a simulation run: one seeded random source, virtual time, and every awaited call
 * of every component. A component never touches a store, a queue or a remote directly: it calls
 * {@link io}, which parks the call; the run loop then picks one parked call at random, decides
 * its fate (done; failed transiently before or after taking effect; its actor crashed before or
 * after it took effect), and lets the continuations run until each component waits again. So
 * every interleaving of concurrent components at their awaited calls is reachable, and the same
 * seed always takes the same one.
 */
export class SimWorld {
  readonly clock: SimClock;
  readonly rng: SeededRandom;
  /** Faults strike only while this is on; a run switches it off for its quiet phase. */
  faultsOn = false;
  rates: FaultRates = { crash: 0, transient: 0 };
  readonly counts = { calls: 0, crashes: 0, transientFaults: 0, timers: 0 };
  /** Called before each pick, so queues can hand waiting messages to free consumers. */
  beforeStep: (() => void) | undefined;
  private readonly ready: PendingCall[] = [];
  private readonly lines: string[] | null;
  private readonly t0: number;
  private drains = 0;

  constructor(seed: number, options: { start: number; trace: boolean }) {
    this.rng = seededRandom(seed);
    this.clock = new SimClock(options.start);
    this.t0 = options.start;
    this.lines = options.trace ? [] : null;
  }

  /** Whether trace lines are kept (then build them; else skip the work). */
  get tracing(): boolean {
    return this.lines !== null;
  }

  trace(text: string): void {
    if (this.lines) this.lines.push(`${String(this.clock.now() - this.t0).padStart(8)} ${text}`);
  }

  traceLines(): readonly string[] {
    return this.lines ?? [];
  }

  /**
   * An awaited call of `actor`: resolves when the run loop performs it. A dead actor's call never
   * settles (its process is gone), and nothing after it runs.
   */
  io<T>(actor: SimActor, kind: CallKind, label: string, run: () => T | Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!actor.alive) return;
      this.ready.push({ actor, kind, label, run, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  /** Waits `ms` of virtual time (or until `signal` aborts); never settles if the actor dies. */
  sleep(actor: SimActor, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const onAbort = (): void => {
        timer.cancelled = true;
        resolve();
      };
      const timer = this.clock.schedule(ms, actor, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Crashes `actor` now: its parked calls and timers are dropped, its listeners told. */
  crash(actor: SimActor, why: string): void {
    if (!actor.alive) return;
    this.counts.crashes += 1;
    this.trace(`CRASH ${actor.name} ${why}`);
    actor.kill();
  }

  /**
   * Runs until `done()` says so (asked whenever nothing is left to do at the current instant), or virtual time passes `deadline`, or nothing is left to do.
   * Returns which of the three ended it.
   */
  async run(done: () => boolean | Promise<boolean>, deadline: number): Promise<'done' | 'deadline' | 'idle'> {
    for (;;) {
      await this.drain();
      this.beforeStep?.();
      if (this.ready.length > 0) {
        await this.step();
        continue;
      }
      // Asked only at rest (nothing left to do at this instant): cheap enough to read everything.
      if (await done()) return 'done';
      const next = this.clock.peekAt();
      if (next === undefined) return 'idle';
      if (next > deadline) return 'deadline';
      const timer = this.clock.takeNext();
      if (!timer) return 'idle';
      this.counts.timers += 1;
      timer.fire();
    }
  }

  /**
   * Resolves once every continuation that is ready has run. A `process.nextTick` queued from a
   * microtask runs only after the whole microtask queue drained, and nothing in the simulated system
   * queues ticks of its own (no real I/O, timers or streams), so this is as complete as a macrotask
   * turn at a fraction of its cost: no pass through the event loop's phases and no poll syscall per
   * step. Every {@link TURN_EVERY} drains (and the first, which may not run inside a microtask) take
   * a real `setImmediate` turn, so output, signals and a test's timeout are still served.
   */
  private drain(): Promise<void> {
    const turn = this.drains++ % TURN_EVERY === 0;
    return new Promise<void>((resolve) => (turn ? setImmediate(resolve) : process.nextTick(resolve)));
  }

  private async step(): Promise<void> {
    const index = this.rng.int(0, this.ready.length - 1);
    const call = this.ready[index] as PendingCall;
    // Swap-remove: order in `ready` does not matter, the pick is random anyway.
    this.ready[index] = this.ready[this.ready.length - 1] as PendingCall;
    this.ready.pop();
    if (!call.actor.alive) return;
    this.counts.calls += 1;
    const fault = this.faultsOn ? this.pickFault(call) : 'none';
    if (fault === 'crash-before') return this.crash(call.actor, `before ${call.label}`);
    if (fault === 'transient-before') {
      this.counts.transientFaults += 1;
      this.trace(`${call.actor.name} ${call.label} FAILED (not done)`);
      return call.reject(this.fault(call, `simulated ${call.kind} fault on ${call.label}`));
    }
    let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await call.run() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    if (fault === 'crash-after') return this.crash(call.actor, `after ${call.label} took effect`);
    if (fault === 'transient-after') {
      this.counts.transientFaults += 1;
      this.trace(`${call.actor.name} ${call.label} FAILED (done, answer lost)`);
      return call.reject(this.fault(call, `simulated ${call.kind} fault after ${call.label}`));
    }
    if (this.lines) this.trace(`${call.actor.name} ${call.label}${outcome.ok ? '' : ` threw ${String((outcome.error as Error)?.message ?? outcome.error)}`}`);
    if (outcome.ok) call.resolve(outcome.value);
    else call.reject(outcome.error);
  }

  private fault(call: PendingCall, message: string): Error {
    // A queue call fails as the bus's sends do when Redis is away (a send past its deadline, a
    // failover): `redisTransientReason` knows it, and consumers retry it without spending a delivery.
    return call.kind === 'store' ? new SimulatedStoreFault(message) : new RedisUnavailableError(message);
  }

  private pickFault(call: PendingCall): 'none' | 'crash-before' | 'crash-after' | 'transient-before' | 'transient-after' {
    const roll = this.rng.next();
    const { crash, transient } = this.rates;
    if (call.actor.crashable && roll < crash) return roll < crash / 2 ? 'crash-before' : 'crash-after';
    // Remote calls meet the remote's own faults (see SimRemote); here only their actor can crash.
    if (call.kind !== 'remote' && roll < crash + transient && roll >= crash) return roll < crash + transient / 2 ? 'transient-before' : 'transient-after';
    return 'none';
  }
}
