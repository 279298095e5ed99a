/** The submission service's components, for tests and the simulation. */
export * from './config';
export * from './submission-handler';
