/** The CLI's building blocks, for tests. */
export * from './cli-env';
export * from './operator-command';
export * from './show-process';
export * from './submit-order';
export * from './check-workflows';
export * from './workflows-command';
export * from './demo/run-demo';
export * from './demo/render-summary';
export * from './demo/render-progress';
export * from './demo/order-view';
export * from './demo/render-remote-stats';
export * from './up/up-options';
export * from './up/state-counts';
export * from './up/start-up';
