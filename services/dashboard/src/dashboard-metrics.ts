import { Gauge, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { ProcessReadModel } from './process-read-model';
import type { QueueInspector } from './queue-inspector';

/** What {@link registerDashboardMetrics} reads at every scrape. */
export interface DashboardMetricsSources {
  readModel: Pick<ProcessReadModel, 'countByWorkflowAndState'>;
  inspector: Pick<QueueInspector, 'depths'>;
  logger: Logger;
}

/**
 * The system-wide gauges, read at scrape time: processes by workflow and state (one count query
 * per workflow in MongoDB) and queue depth by queue and state (BullMQ `getJobCounts`). The
 * dashboard owns them because it already reads every queue and the whole store, and there is one
 * of it, so a sum over scrape targets never counts a process twice. A source that fails leaves its
 * gauge empty for that scrape (and says why in the log) rather than failing the whole scrape.
 */
export function registerDashboardMetrics(registry: Registry, sources: DashboardMetricsSources): void {
  const { readModel, inspector, logger } = sources;
  new Gauge({
    name: 'sas_processes',
    help: 'Processes in the store, by workflow and state (terminal ones until their TTL removes them)',
    labelNames: ['workflow', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const c of await readModel.countByWorkflowAndState()) this.set({ workflow: c.workflow, state: c.state }, c.count);
      } catch (e) {
        logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'could not count processes for /metrics; sas_processes left out of this scrape');
      }
    },
  });
  new Gauge({
    name: 'sas_queue_jobs',
    help: 'Jobs in each system queue by state (waiting, prioritized, delayed, active, failed): the backlog an autoscaler reads',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        for (const d of await inspector.depths()) this.set({ queue: d.queue, state: d.state }, d.count);
      } catch (e) {
        logger.warn({ err: e instanceof Error ? e.message : String(e) }, 'could not read queue depths for /metrics; sas_queue_jobs left out of this scrape');
      }
    },
  });
}
