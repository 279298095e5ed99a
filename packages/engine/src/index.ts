/**
 * The process engine: the single path by which any service changes a process.
 *
 * @example
 * ```ts
 * const engine = new ProcessEngine({ store, outbox: bus, registry, clock, who, replyQueue, logger });
 * await engine.apply(reply.processId, { type: 'reply', reply });
 * ```
 */
export * from './outbox';
export * from './apply-outcome';
export * from './action-performer';
export * from './outbox-entries';
export * from './outbox-delivery';
export * from './outbox-due';
export * from './process-engine';
export * from './recent-documents';
export * from './paused-agents';
export * from './paused-agents-cache';
export * from './transition-trace';
