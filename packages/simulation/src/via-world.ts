import type { SimActor } from './sim-actor';
import type { CallKind, SimWorld } from './sim-world';

/** Sees every call that took effect through {@link viaWorld}, with its result. */
export type CallObserver = (actor: SimActor, method: string, args: readonly unknown[], result: unknown) => void;

/**
 * `target` as `actor` sees it: every method call becomes an awaited call of the simulation, so it
 * interleaves with everyone else's and meets the faults of its kind. One shared store (or lease)
 * wrapped once per actor is how several instances share state and each can crash on its own.
 */
export function viaWorld<T extends object>(world: SimWorld, actor: SimActor, kind: CallKind, name: string, target: T, observe?: CallObserver): T {
  // One wrapper per method, made at its first use: components call the same few methods thousands
  // of times, and a fresh closure per property read was garbage on every awaited call.
  const wrappers = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  const wrap = (prop: string, method: (...a: unknown[]) => unknown): ((...args: unknown[]) => Promise<unknown>) => {
    // Async, with one await, as before the wrappers were kept: the number of microtask turns a call
    // takes decides how continuations interleave, and with it what each seed explores.
    const run = async (args: unknown[]): Promise<unknown> => {
      const result: unknown = await method.apply(target, args);
      observe?.(actor, prop, args, result);
      return result;
    };
    return (...args: unknown[]) => world.io(actor, kind, world.tracing ? `${name}.${prop}(${describeArgs(args)})` : prop, () => run(args));
  };
  return new Proxy(target, {
    get: (obj, prop, receiver) => {
      const value: unknown = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      let wrapper = wrappers.get(prop);
      if (wrapper === undefined) {
        wrapper = wrap(prop, value as (...a: unknown[]) => unknown);
        wrappers.set(prop, wrapper);
      }
      return wrapper;
    },
  });
}

/** Short, stable text for a trace line: ids and scalars, not whole documents. */
function describeArgs(args: readonly unknown[]): string {
  return args
    .map((a) => {
      if (a instanceof Date || (typeof a === 'object' && a !== null && typeof (a as Date).getTime === 'function')) return `t+${(a as Date).getTime() % 10_000_000}`;
      if (typeof a !== 'object' || a === null) return JSON.stringify(a);
      const o = a as Record<string, unknown>;
      if (typeof o['_id'] === 'string') return `${o['_id']}{${o['state'] ?? ''} rev ${String(o['revision'] ?? '')}}`;
      if (Array.isArray(a)) return `[${a.length}]`;
      return '{…}';
    })
    .join(', ');
}
