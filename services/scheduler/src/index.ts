/** The scheduler service's components, for tests and the simulation. */
export * from './config';
export * from './scheduler';
export * from './operator-command-handler';
export * from './held-work-releaser';
export * from './signal-handler';
