import { ProbeServer, loadConfig } from '@sas/runtime';
import { AgentRegistrationRepository, LeaseRepository } from '@sas/store';
import { liveAgentsOf } from '@sas/workflow';
import { openProcessService, runMain } from '@sas/wiring';
import { SupervisorConfig } from './config';
import { PromSupervisorMetrics } from './prom-supervisor-metrics';
import { Supervisor } from './supervisor';

runMain('supervisor', async (env) => {
  const config = loadConfig(SupervisorConfig, env);
  const svc = await openProcessService('supervisor', config);
  const metrics = new PromSupervisorMetrics(svc.metrics);
  const supervisor = new Supervisor({
    engine: svc.engine,
    store: svc.store,
    lease: new LeaseRepository(svc.connection.db),
    clock: svc.clock,
    instanceId: svc.instanceId,
    logger: svc.logger,
    sweepIntervalMs: config.SWEEP_INTERVAL_MS,
    batch: config.SWEEP_BATCH,
    leaseTtlMs: config.LEASE_TTL_MS,
    metrics,
    liveAgents: async (now) => liveAgentsOf(await new AgentRegistrationRepository(svc.connection.db).listLive(now)),
  });
  metrics.countersOf(supervisor);
  supervisor.start();
  const probe = new ProbeServer({ ready: () => svc.connectionsReady(), registry: svc.metrics });
  // The bound port is logged in the ready line: the readiness signal for whoever started this process.
  const probePort = config.PROBE_PORT >= 0 ? await probe.start(config.PROBE_PORT, config.PROBE_HOST) : null;
  return {
    logger: svc.logger,
    closables: [
      { name: 'supervisor', close: () => supervisor.close() },
      { name: 'probe', close: () => probe.close() },
      ...svc.closables,
    ],
    ready: () => svc.logger.info({ sweepIntervalMs: config.SWEEP_INTERVAL_MS, probePort }, 'supervisor ready'),
  };
});
