/**
 * Queues over BullMQ: typed sending, validated consumers, dead letters.
 *
 * @example
 * ```ts
 * const bus = new Bus({ redisUrl, prefix, instanceId, logger, clock: systemClock });
 * bus.consume({ queue: QueueNames.schedulerReplies, schema: AgentReply, handle: (r) => scheduler.onReply(r) });
 * ```
 */
export * from './bus';
export * from './consumer';
export * from './consumer-spec';
export * from './consumer-lock';
export * from './retry-policy';
export * from './dead-letter-sink';
export * from './bus-metrics';
export * from './prom-bus-metrics';
export * from './send-options';
export * from './replica-wait';
