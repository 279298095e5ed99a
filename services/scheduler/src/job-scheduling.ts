import { JobRunner, MongoJobStore, ensureJobIndexes } from '@sas/jobs';
import type { Closable } from '@sas/runtime';
import { LeaseRepository } from '@sas/store';
import type { ProcessService } from '@sas/wiring';
import type { SchedulerConfig } from './config';

/**
 * Starts the persistent job runner inside a scheduler, on the scheduler's MongoDB, bus and clock,
 * and returns it to be closed on shutdown (null when JOBS_ENABLED is false). Kept out of
 * `main.ts` so that file stays wiring only.
 */
export async function startJobScheduling(svc: ProcessService, config: SchedulerConfig): Promise<(Closable & { runner: JobRunner }) | null> {
  if (!config.JOBS_ENABLED) {
    svc.logger.info('persistent jobs disabled (JOBS_ENABLED=false); another scheduler runs them');
    return null;
  }
  await ensureJobIndexes(svc.connection.db);
  const runner = new JobRunner(new MongoJobStore(svc.connection.db), svc.bus, svc.clock, new LeaseRepository(svc.connection.db), svc.logger.child({ component: 'job-runner' }), {
    instanceId: svc.instanceId,
    pollIntervalMs: config.JOBS_POLL_INTERVAL_MS,
    retentionMs: config.JOBS_RETENTION_MS,
    misfireThresholdMs: config.JOBS_MISFIRE_THRESHOLD_MS,
    ...(config.JOBS_LEASE_TTL_MS !== undefined ? { leaseTtlMs: config.JOBS_LEASE_TTL_MS } : {}),
    ...(config.JOBS_IN_FLIGHT_TIMEOUT_MS !== undefined ? { inFlightTimeoutMs: config.JOBS_IN_FLIGHT_TIMEOUT_MS } : {}),
    ...(config.JOBS_LATE_TOLERANCE_MS !== undefined ? { lateToleranceMs: config.JOBS_LATE_TOLERANCE_MS } : {}),
  });
  runner.start();
  return { name: 'job-runner', close: () => runner.close(), runner };
}
