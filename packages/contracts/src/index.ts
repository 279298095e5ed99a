/**
 * Message and document contracts shared by every service.
 *
 * @example
 * ```ts
 * import { SubmissionMessage, QueueNames } from '@sas/contracts';
 * const parsed = SubmissionMessage.safeParse(job.data);
 * ```
 */
export * from './schema-version';
export * from './queue-names';
export * from './process-state';
export * from './common';
export * from './traceparent';
export * from './retry-policy';
export * from './json-depth';
export * from './submission-message';
export * from './agent-request';
export * from './agent-reply';
export * from './status-event';
export * from './alert';
export * from './dead-letter-entry';
export * from './operator-command';
export * from './process-signal';
export * from './scheduler-wakeup';
export * from './process-document';
export * from './process-event';
export * from './outbox-entry';
export * from './breaker-state';
export * from './agent-pause';
export * from './describe-issues';
export * from './job-execution-status';
export * from './job-specification';
export * from './step-result-limits';
export * from './submission-fingerprint';
export * from './reply-queue-marker';
export * from './queue-key-prefix';
export * from './redis-url';
export * from './bulk-operation';
export * from './clone';
export * from './audit-entry';
export * from './compile-payload-schema';
export * from './agent-registration';
