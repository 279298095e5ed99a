/**
 * The built-in HTTP agent: one user of `@sas/agent`, calling a remote service over HTTP as a
 * declarative mapping per operation says (remote-sim's dialect by default).
 */
export * from './http-agent';
export * from './http-agent-config';
export * from './http-mapping';
export * from './http-remote-call';
export * from './keep-alive-fetch';
export * from './remote-sim-mapping';
export * from './status-class';
export * from './template';
