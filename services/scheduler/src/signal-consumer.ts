import type { Bus } from '@sas/bus';
import { ProcessSignal, QueueNames } from '@sas/contracts';
import type { SignalHandler } from './signal-handler';

/**
 * Consumes `process.signals` with `handler`: every message is validated first; an invalid one is
 * dead-lettered and its sender answered `invalid` with the reasons (when its reply queue can be
 * read), and the consumer goes on. `afterEach` runs after each handled signal (the service claims
 * at once: a consumed signal may have released its process for the next entry).
 */
export function consumeSignals(bus: Bus, handler: SignalHandler, afterEach: () => void = () => undefined): void {
  bus.consume({
    queue: QueueNames.processSignals,
    schema: ProcessSignal,
    // Signals of different processes are independent; two for one process are kept apart by its conditional writes.
    concurrency: 4,
    handle: async (signal, meta) => {
      await handler.handle(signal, meta.jobId);
      afterEach();
    },
    onRejected: (raw, reason, issues) => handler.rejected(raw, reason, issues),
  });
}
