import type { EventEmitter } from 'node:events';
import { Worker, type Queue } from 'bullmq';

/**
 * Makes every `'error'` event of `emitter` handled for the rest of its life, including after
 * its own code has removed every listener: such an error goes to `onError` instead of being
 * thrown. An unhandled `'error'` event ends the process, and BullMQ removes all the listeners of
 * its internal connection when a Queue or Worker closes (`RedisConnection.close`) while that
 * connection's start (a version check) may still be in flight: when the connection then closes
 * (BullMQ disconnects a Worker's blocking connection itself; the bus closes the shared ones after
 * their Queues and Workers), the start fails with `Connection is closed`, emitted as `'error'`
 * with nobody listening. A SIGTERM soon after start-up ended that way (exit 1; decision 125).
 */
function handleErrorsForLife(emitter: EventEmitter, onError: (err: unknown) => void): void {
  const emit = emitter.emit.bind(emitter);
  emitter.emit = (event: string | symbol, ...args: unknown[]): boolean => {
    if (event === 'error' && emitter.listenerCount('error') === 0) {
      onError(args[0]);
      return false;
    }
    return emit(event, ...args);
  };
}

/**
 * {@link handleErrorsForLife} for a BullMQ Queue or Worker and the connections inside it (a
 * Worker has a second one, for its blocking wait). Those are BullMQ internals, reached by name:
 * if a BullMQ upgrade renames them this throws at once, naming what is missing, rather than
 * leaving a shutdown that can crash.
 */
export function handleBullErrorsForLife(target: Queue | Worker, onError: (err: unknown) => void): void {
  handleErrorsForLife(target, onError);
  const internals = target as unknown as Record<string, unknown>;
  const names = target instanceof Worker ? ['connection', 'blockingConnection'] : ['connection'];
  for (const name of names) {
    const connection = internals[name];
    if (!isEventEmitter(connection)) {
      throw new Error(
        `BullMQ's ${target.constructor.name} has no '${name}' event emitter any more (a BullMQ upgrade?): update packages/bus/src/lifelong-errors.ts to reach its connections, or a shutdown may crash on their errors`,
      );
    }
    handleErrorsForLife(connection, onError);
  }
}

function isEventEmitter(value: unknown): value is EventEmitter {
  return typeof value === 'object' && value !== null && typeof (value as EventEmitter).emit === 'function' && typeof (value as EventEmitter).listenerCount === 'function';
}
