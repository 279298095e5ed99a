/**
 * The built-in HTTP agent: one user of `@sas/agent`, calling a remote service over HTTP. Exported
 * so tests can call the remote the way the agent process does.
 */
export * from './http-remote-call';
