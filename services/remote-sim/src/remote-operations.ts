/**
 * The simulated remote services and what each can do. Every forward operation has exactly one
 * compensation on the same service, which is how a compensation finds the effect it undoes.
 */
export const RemoteOperations = {
  payment: { forward: 'charge', compensation: 'refund' },
  inventory: { forward: 'reserve', compensation: 'release' },
  shipping: { forward: 'create', compensation: 'cancel' },
  // The trip-booking example's services (examples/trip-booking, docs/flows.md).
  flight: { forward: 'book', compensation: 'cancel' },
  hotel: { forward: 'book', compensation: 'cancel' },
} as const;

/** Name of a simulated remote service: `payment`, `inventory`, `shipping`, `flight` or `hotel`. */
export type RemoteServiceName = keyof typeof RemoteOperations;

/** The services the deployments (Compose, Kubernetes) run an agent for, in a stable order. */
export const remoteServiceNames: readonly RemoteServiceName[] = ['payment', 'inventory', 'shipping'];

/** Every service remote-sim simulates, the trip-booking example's too (used to list faults and stats). */
export const simulatedServiceNames: readonly RemoteServiceName[] = [...remoteServiceNames, 'flight', 'hotel'];

/** True when `name` is one of the simulated services; narrows the type for the caller. */
export function isRemoteService(name: string): name is RemoteServiceName {
  return Object.prototype.hasOwnProperty.call(RemoteOperations, name);
}

/** The two operations of a service, forward first. */
export function operationsOf(service: RemoteServiceName): readonly [string, string] {
  const ops = RemoteOperations[service];
  return [ops.forward, ops.compensation];
}

/** True when `operation` is one of `service`'s operations. */
export function isOperationOf(service: RemoteServiceName, operation: string): boolean {
  return operationsOf(service).includes(operation);
}

/** True when `operation` undoes the service's forward operation (never subject to per-order failures). */
export function isCompensation(service: RemoteServiceName, operation: string): boolean {
  return RemoteOperations[service].compensation === operation;
}
