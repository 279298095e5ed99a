/**
 * `@sas/agent`: write an agent for your own remote service. Your handler makes one call with the
 * idempotency key it is given; the library validates the request, retries transient faults with
 * backoff and jitter inside the step's complete-by time, parks steps while the remote's circuit
 * breaker is open, stops silently past complete-by, answers the scheduler, serves probes and
 * shuts down gracefully. The lower-level classes are exported so tests and the deterministic
 * simulation can run an agent without Redis, MongoDB or HTTP.
 *
 * @example
 * ```ts
 * import { PermanentError, runAgent } from '@sas/agent';
 * await runAgent({ agents: [{ name: 'payment', operations: {
 *   charge: async (call) => {
 *     const res = await fetch(`https://bank.example/charges`, { method: 'POST', signal: call.signal,
 *       headers: { 'Idempotency-Key': call.idempotencyKey }, body: JSON.stringify(call.payload) });
 *     if (res.status === 402) throw new PermanentError('card declined');
 *     return { chargeId: ((await res.json()) as { id: string }).id };
 *   },
 * } }] });
 * ```
 */
export * from './agent-call';
export * from './agent-definition';
export * from './agent-host';
export * from './agent-metrics';
export * from './agent-worker';
export * from './backoff';
export * from './breaker-reporter';
export * from './breakers';
export * from './carried-result';
export * from './circuit-breakers';
export * from './circuit-open-error';
export * from './agent-config';
export * from './deadline';
export * from './handle-outcome';
export * from './parse-retry-after';
export * from './prom-agent-metrics';
export * from './resolve-operation';
export * from './run-agent';
export * from './sleep';
export { PermanentError, TransientError } from '@sas/runtime';
export * from './agent-registrar';
