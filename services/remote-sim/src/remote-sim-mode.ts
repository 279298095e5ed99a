import { z } from 'zod';

/**
 * Whether the simulator covers for its caller.
 *
 * - `protective` (the default, for the demo and the tests of the remote-side protections): an undo
 *   that names its forward call tombstones that key, and a later forward call under it is refused
 *   with 409 and no effect, as a careful real remote would.
 * - `plain`: no tombstones; a forward call that arrives after its undo is applied. The end-to-end
 *   checks of the engine's own guarantees run in this mode, so that a remote never makes them true
 *   on the engine's behalf. Idempotency-key replay stays: every remote the engine supports has it.
 */
export const RemoteSimMode = z.enum(['protective', 'plain']);
export type RemoteSimMode = z.infer<typeof RemoteSimMode>;
