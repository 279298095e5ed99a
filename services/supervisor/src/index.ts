/** The supervisor service's components, for tests and the simulation. */
export * from './config';
export * from './sweep-lease';
export * from './supervisor';
