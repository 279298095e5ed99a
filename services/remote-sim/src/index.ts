/**
 * Simulated remote services (payment, inventory, shipping) with fault injection and an effect
 * ledger, for the demo and the tests.
 *
 * @example
 * ```ts
 * const sim = new RemoteSim({ clock: systemClock, random: seededRandom(42), logger });
 * const server = new RemoteSimServer({ sim, logger });
 * const port = await server.start(0, '127.0.0.1');
 * ```
 */
export * from './remote-sim-server';
export * from './remote-sim';
export * from './remote-sim-config';
export * from './sim-router';
export * from './sim-response';
export * from './remote-call-body';
export * from './remote-operations';
export * from './effect-ledger';
export * from './arrival-log';
export * from './remote-sim-mode';
export * from './compensated-key';
export * from './fault-plan';
export * from './fault-settings';
export * from './call-stats';
export * from './seeded-random';
export * from './malformed-json';
