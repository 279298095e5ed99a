import { describeIssues, type AgentRequest } from '@sas/contracts';
import type { OperationHandler } from './agent-call';
import type { AgentDefinition, Operation } from './agent-definition';

/** A request's operation, ready to call: its handler and the parsed input. */
export interface ResolvedOperation {
  handle: OperationHandler<unknown>;
  input: unknown;
}

/**
 * Finds the handler of a request's operation and checks its payload against the operation's
 * `input` schema. Expected outcomes are values: `{ problem }` says why the request can never
 * succeed (an unknown operation, a payload that does not match), and the agent answers it with a
 * permanent error without calling anything.
 */
export function resolveOperation(
  agent: AgentDefinition,
  request: Pick<AgentRequest, 'operation' | 'payload'>,
): ResolvedOperation | { problem: string } {
  const operation = operationOf(agent, request.operation);
  if (!operation) {
    const known = Object.keys(agent.operations).sort();
    const list = known.length ? known.map((k) => `'${k}'`).join(', ') : 'none';
    return {
      problem: `agent '${agent.name}' has no operation '${request.operation}' (it knows ${list}); check the workflow's step or the agent's operations`,
    };
  }
  if (typeof operation === 'function') return { handle: operation as OperationHandler<unknown>, input: request.payload };
  if (!operation.input) return { handle: operation.handle, input: request.payload };
  const parsed = operation.input.safeParse(request.payload);
  if (!parsed.success) {
    return {
      problem: `payload of ${agent.name}/${request.operation} does not match its input schema: ${describeIssues(parsed.error).join('; ')}`,
    };
  }
  return { handle: operation.handle, input: parsed.data as unknown };
}

function operationOf(agent: AgentDefinition, name: string): Operation | undefined {
  // Own keys only: an operation named `toString` must not find Object.prototype's.
  return Object.prototype.hasOwnProperty.call(agent.operations, name)
    ? agent.operations[name]
    : agent.otherOperations;
}

