/**
 * Helpers for jest tests: wait on conditions with deadlines, unique names per test, collect what
 * arrives on a queue, and a private stack (Redis, MongoDB, services as real processes) per test.
 * For component tests without servers: a recording outbox, a manual clock and an in-memory lease.
 *
 * @example
 * ```ts
 * const stack = await TestStack.start({ name: 'happy-path' });
 * await stack.spawn('submission');
 * const statuses = new QueueCollector({ redisUrl: stack.env.REDIS_URL, prefix: stack.queuePrefix, queue: 'app.status' });
 * await statuses.start();
 * await statuses.waitForCount(1, 10_000);
 * await statuses.close();
 * await stack.stop();
 * ```
 */
export * from './wait-for';
export * from './unique-name';
export * from './queue-collector';
export * from './test-stack';
export * from './with-database';
export * from './recording-outbox';
export * from './manual-clock';
export * from './everyone-leads';
export * from './fault-injector';
export * from './fault-table';
export * from './metrics-scrape';
export * from './recording-tracing';
export * from './fault-proxy';
