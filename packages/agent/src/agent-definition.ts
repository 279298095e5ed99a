import type { z } from 'zod';
import type { JsonObject } from '@sas/contracts';
import type { AgentCall, OperationHandler } from './agent-call';

/** An operation with a schema its payload must match before the handler is called. */
export interface OperationDefinition<Schema extends z.ZodTypeAny = z.ZodTypeAny> {
  /**
   * Checked against the request's payload before any call: a mismatch is a permanent failure
   * naming the field (the same payload can never pass), never a retry. The parsed value is `call.input`.
   */
  input?: Schema;
  handle: OperationHandler<z.output<Schema>>;
}

/**
 * An operation: a bare handler, or a handler with an `input` schema. Written inline, a handler's
 * `call.input` is `unknown`; {@link defineOperation} types it from the schema.
 */
export type Operation = OperationHandler | AnyOperationDefinition;

/** An {@link OperationDefinition} of any schema (method syntax, so any handler's input type fits). */
export interface AnyOperationDefinition {
  input?: z.ZodTypeAny;
  handle(call: AgentCall<unknown>): Promise<JsonObject>;
}

/** One logical agent: the remote service it serves and how each of its operations is called. */
export interface AgentDefinition {
  /** The agent's name, as workflows name it; it consumes `agent.<name>.requests`. */
  name: string;
  /** Handlers by operation name, e.g. `{ charge, refund }`. */
  operations: Readonly<Record<string, Operation>>;
  /**
   * Handles every operation not in `operations` (`call.operation` says which). Without it, an
   * unknown operation is a permanent failure naming the known ones.
   */
  otherOperations?: Operation;
  /**
   * Which of `operations` undo another (e.g. `['refund']`), as the agent registers them for
   * `sas agents`; optional: the live check needs only the operation names. Naming one the agent
   * has no handler for stops the agent at start.
   */
  compensations?: readonly string[];
}

/**
 * Types `call.input` from the operation's schema; an object literal in `operations` would leave it
 * `unknown`.
 *
 * @example
 * ```ts
 * const charge = defineOperation({
 *   input: z.object({ amount: z.number().positive() }),
 *   handle: async (call) => ({ chargeId: await bank.charge(call.input.amount, call.idempotencyKey) }),
 * });
 * ```
 */
export function defineOperation<Schema extends z.ZodTypeAny>(
  definition: OperationDefinition<Schema> & { input: Schema },
): OperationDefinition<Schema>;
export function defineOperation(definition: { handle: OperationHandler<JsonObject> }): Operation;
export function defineOperation(definition: Operation): Operation {
  return definition;
}
