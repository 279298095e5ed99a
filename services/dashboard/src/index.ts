/**
 * The operator surface: bull-board, a JSON API over processes, breakers, alerts and dead letters,
 * a process-timeline page, and the consumer of the `alerts` queue that keeps alerts in MongoDB. `main.ts` runs it; these exports are for tests and embedding.
 *
 * @example
 * ```ts
 * const app = createDashboardApp({ readModel: new MongoReadModel(db), alerts: new MongoAlertStore(db), queues, commands, logger, redisReady, instanceId, queuePrefix });
 * const port = await new DashboardServer(app).start(0, '127.0.0.1');
 * ```
 */
export * from './config';
export * from './queue-catalog';
export * from './limit-query';
export * from './process-list-query';
export * from './operator-request';
export * from './parse-input';
export * from './process-read-model';
export * from './mongo-read-model';
export * from './alert-record';
export * from './alert-store';
export * from './mongo-alert-store';
export * from './alert-inbox';
export * from './alert-consumer-spec';
export * from './queue-inspector';
export * from './dashboard-metrics';
export * from './summary';
export * from './command-sender';
export * from './scheduler-command-sender';
export * from './api-errors';
export * from './login-cookie';
export * from './dashboard-credentials';
export * from './dashboard-access';
export * from './same-origin-guard';
export * from './health-routes';
export * from './process-routes';
export * from './overview-routes';
export * from './escape-html';
export * from './page-style';
export * from './page-script';
export * from './dashboard-page';
export * from './dashboard-app';
export * from './dashboard-server';
export * from './token-strength';
export * from './auth-limits';
export * from './credential-failures';
export * from './audit-trail';
export * from './audit-routes';
export * from './audit-panel-script';
export * from './read-only-board';
export * from './bull-board-path';
export * from './security-headers';
export * from './allowed-hosts';
export * from './no-store';
export * from './untrusted-proxy-warning';
export * from './cross-site-navigation';
export * from './no-query';
export * from './session-revocations';
