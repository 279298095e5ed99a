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
 * - `keyless`: `plain`, and the `Idempotency-Key` is not honoured either: every call applies a new
 *   effect, as a plain REST service (json-server) does. The key is still required and kept on the
 *   effect as the caller's reference, which `GET /ledger?idempotencyKey=` lists by: the remote
 *   that the HTTP agent's lookup is for (docs/http-mapping.md).
 */
export const RemoteSimMode = z.enum(['protective', 'plain', 'keyless']);
export type RemoteSimMode = z.infer<typeof RemoteSimMode>;
