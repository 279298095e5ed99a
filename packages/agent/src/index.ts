/**
 * The agent library: the machinery of an agent around a remote call, with retries, backoff, jitter and
 * a circuit breaker, always inside the step's complete-by time. The classes below are exported so
 * tests and the deterministic simulation can run an agent without Redis, MongoDB or HTTP.
 *
 * @example
 * ```ts
 * import { AgentWorker, CircuitBreakers } from '@sas/agent';
 * const worker = new AgentWorker({ agent: 'payment', instanceId: 'sim-1', clock, remoteCall,
 *   breakers, reply, sleep, random, logger, defaults: { retry } });
 * const outcome = await worker.handle(request); // { kind: 'replied-ok', calls: 1 }
 * ```
 */
export * from './agent-worker';
export * from './backoff';
export * from './breaker-reporter';
export * from './breakers';
export * from './circuit-breakers';
export * from './circuit-open-error';
export * from './agent-config';
export * from './deadline';
export * from './handle-outcome';
export * from './parse-retry-after';
export * from './remote-call';
export * from './sleep';
