import { BulkRunner, MongoBulkCandidates, MongoBulkOperationStore, ensureBulkIndexes } from '@sas/bulk';
import type { Closable } from '@sas/runtime';
import { LeaseRepository } from '@sas/store';
import type { ProcessService } from '@sas/wiring';
import { registerBulkRunnerCounters } from './bulk-runner-counters';
import type { SchedulerConfig } from './config';
import type { OperatorCommandHandler } from './operator-command-handler';

/**
 * Starts the bulk operations runner inside a scheduler: every scheduler runs one, and each
 * operation's lease lets one of them work on it at a time. Each process goes through the
 * scheduler's own operator command handler, as a single resubmit or cancel does; `wake` starts a
 * claim round for what it made Pending.
 */
export async function startBulkOperations(svc: ProcessService, config: SchedulerConfig, commands: OperatorCommandHandler, wake: () => void): Promise<Closable> {
  const db = svc.connection.db;
  await ensureBulkIndexes(db);
  const runner = new BulkRunner(
    new MongoBulkOperationStore(db),
    new MongoBulkCandidates(db),
    async (command) => {
      const result = await commands.handle(command);
      // A resubmitted process is Pending: claim it now rather than at the next poll.
      wake();
      return result;
    },
    new LeaseRepository(db),
    svc.clock,
    svc.logger.child({ component: 'bulk-runner' }),
    {
      instanceId: svc.instanceId,
      pollIntervalMs: config.BULK_POLL_INTERVAL_MS,
      leaseTtlMs: config.BULK_LEASE_TTL_MS,
      pageSize: config.BULK_PAGE_SIZE,
      retentionMs: config.BULK_RETENTION_MS,
    },
  );
  registerBulkRunnerCounters(svc.metrics, runner);
  runner.start();
  return { name: 'bulk-runner', close: () => runner.close() };
}
