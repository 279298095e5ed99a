import { z } from 'zod';
import { ProcessEventEntry } from './process-event';

/**
 * Something a transition must tell the world, stored in the process document in the same write as
 * the transition itself (a transactional outbox). It is delivered after the commit and removed
 * once delivered; whoever touches the process next, or the supervisor's sweep, delivers what a
 * crash left behind. `id` is deterministic, so a second delivery is dropped (BullMQ job id, or
 * the history entry's `_id`).
 */
export const OutboxEntry = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), id: z.string(), queue: z.string(), message: z.unknown() }),
  z.object({ kind: z.literal('history'), id: z.string(), entry: ProcessEventEntry }),
]);
export type OutboxEntry = z.infer<typeof OutboxEntry>;
