/**
 * Deterministic simulation of the whole protocol: the real components on a seeded clock, queues,
 * stores and remotes, with crashes and faults between any two awaited calls, and the invariants
 * checked after every run. `pnpm simulate --seeds N` runs it; `--seed S` replays one run exactly.
 */
export * from './seeded-random';
export * from './sim-actor';
export * from './sim-clock';
export * from './sim-world';
export * from './via-world';
export * from './sim-bus';
export * from './sim-breakers';
export * from './sim-remote';
export * from './sim-scenario';
export * from './sim-system';
export * from './invariants';
export * from './run-seed';
