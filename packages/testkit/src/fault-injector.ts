/** One call a {@link FaultInjector} saw: which method, and its 1-based number among all calls. */
export interface InjectedCall {
  method: string;
  /** 1-based number of this call among every call through the injector. */
  n: number;
  /** 1-based number of this call among calls of the same method. */
  nOfMethod: number;
}

/** Decides whether a call fails: return the error to throw, or undefined to let it through. */
export type FaultRule = (call: InjectedCall) => Error | undefined;

/**
 * Wraps any object of async methods (a `ProcessStore`, an `Outbox`, a `JobStore`, ...) so that
 * chosen calls throw before reaching it, as a MongoDB or Redis blip would. It exists so component
 * tests can run "this call fails once" at every call site a component makes: count the calls of a
 * clean run with {@link calls}, then rerun with `failOnce(n)` for each n.
 *
 * A failed call never reaches the wrapped object, so it changed nothing: the fault is the
 * "request lost" kind. Use {@link failAfter} for the "done, but the answer was lost" kind.
 *
 * @example
 * ```ts
 * const faults = new FaultInjector();
 * const store = faults.wrap<ProcessStore>(new InMemoryProcessStore());
 * faults.failOnce(3); // the third call, whatever it is, throws once
 * ```
 */
export class FaultInjector {
  private readonly rules: FaultRule[] = [];
  private readonly seen: InjectedCall[] = [];
  private readonly perMethod = new Map<string, number>();

  /** Every call made so far through any object this injector wrapped, in order. */
  get calls(): readonly InjectedCall[] {
    return this.seen;
  }

  /** Adds a rule; every rule is asked about every call, the first error wins. */
  add(rule: FaultRule): this {
    this.rules.push(rule);
    return this;
  }

  /** The n-th call (1-based, among all calls) throws `error`, once. */
  failOnce(n: number, error: Error = transientFault(`injected fault on call ${n}`)): this {
    return this.add((c) => (c.n === n ? error : undefined));
  }

  /** The n-th call of `method` (1-based) throws `error`, once. */
  failMethodOnce(method: string, n = 1, error: Error = transientFault(`injected fault on ${method} #${n}`)): this {
    return this.add((c) => (c.method === method && c.nOfMethod === n ? error : undefined));
  }

  /** Every call of `method` throws while `active()` says so (an outage of one operation). */
  failWhile(method: string | '*', active: () => boolean, error: Error = transientFault(`injected outage of ${method}`)): this {
    return this.add((c) => ((method === '*' || c.method === method) && active() ? error : undefined));
  }

  /** Removes every rule (the fault has passed); the call count goes on. */
  heal(): void {
    this.rules.length = 0;
  }

  /**
   * A proxy of `target` whose methods go through the rules. With `afterwards`, a chosen call is
   * performed and only then throws: the effect happened, the caller cannot know it.
   */
  wrap<T extends object>(target: T, options: { afterwards?: boolean } = {}): T {
    return new Proxy(target, {
      get: (obj, prop, receiver) => {
        const value: unknown = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function' || typeof prop !== 'string') return value;
        return async (...args: unknown[]) => {
          const fault = this.next(prop);
          if (fault && !options.afterwards) throw fault;
          const result: unknown = await (value as (...a: unknown[]) => unknown).apply(obj, args);
          if (fault) throw fault;
          return result;
        };
      },
    });
  }

  private next(method: string): Error | undefined {
    const nOfMethod = (this.perMethod.get(method) ?? 0) + 1;
    this.perMethod.set(method, nOfMethod);
    const call: InjectedCall = { method, n: this.seen.length + 1, nOfMethod };
    this.seen.push(call);
    for (const rule of this.rules) {
      const error = rule(call);
      if (error) return error;
    }
    return undefined;
  }
}

/** An error shaped like a dropped connection, which every component must treat as transient. */
export function transientFault(message: string): Error {
  const error = new Error(message);
  error.name = 'InjectedTransientFault';
  return error;
}
