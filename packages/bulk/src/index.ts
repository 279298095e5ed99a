/**
 * Bulk resubmit and bulk cancel by filter, as durable operations: an operation is stored with its
 * filter, a cursor and its progress; a scheduler's {@link BulkRunner} walks the processes in `_id`
 * order under a per-operation lease and applies the same operator command to each as a single
 * resubmit or cancel does, with a command id derived from the operation, so a re-run page after a
 * crash does not act twice.
 *
 * @example
 * ```ts
 * await ensureBulkIndexes(db);
 * const service = new BulkOperationService(new MongoBulkOperationStore(db), new MongoBulkCandidates(db), systemClock);
 * await service.create(BulkOperationRequest.parse(body), 'alice');
 * // in a scheduler
 * new BulkRunner(store, candidates, (c) => handler.handle(c), new LeaseRepository(db), systemClock, logger, { instanceId }).start();
 * ```
 */
export * from './bulk-filter-match';
export * from './bulk-filter-query';
export * from './bulk-candidates';
export * from './in-memory-bulk-candidates';
export * from './mongo-bulk-candidates';
export * from './bulk-progress';
export * from './bulk-operation-store';
export * from './in-memory-bulk-operation-store';
export * from './mongo-bulk-operation-store';
export * from './bulk-operation-service';
export * from './bulk-runner';
