import { AgentReply, OperatorCommand, QueueNames, SchedulerWakeup } from '@sas/contracts';
import { ProbeServer, loadConfig } from '@sas/runtime';
import { offerLocalClaims, openProcessService, runMain } from '@sas/wiring';
import { AgentRegistrationRepository } from '@sas/store';
import { scheduleAgentCoverageCheck } from './agent-coverage-check';
import { startBulkOperations } from './bulk-operations';
import { SchedulerConfig } from './config';
import { registerJobRunnerCounters } from './job-runner-counters';
import { startJobScheduling } from './job-scheduling';
import { HeldWorkReleaser } from './held-work-releaser';
import { registerHeldWorkCounters } from './held-work-counters';
import { OperatorCommandHandler } from './operator-command-handler';
import { PromSchedulerMetrics } from './prom-scheduler-metrics';
import { Scheduler } from './scheduler';
import { registerSignalCounters } from './signal-counters';
import { consumeSignals } from './signal-consumer';
import { SignalHandler } from './signal-handler';

runMain('scheduler', async (env) => {
  const config = loadConfig(SchedulerConfig, env);
  const svc = await openProcessService('scheduler', config);
  const { bus, engine, logger } = svc;
  const metrics = new PromSchedulerMetrics(svc.metrics);
  const scheduler = new Scheduler({
    engine,
    store: svc.store,
    clock: svc.clock,
    logger,
    claimBatch: config.CLAIM_BATCH,
    pollIntervalMs: config.POLL_INTERVAL_MS,
    canDispatch: () => bus.isReady(),
    metrics,
  });
  metrics.countersOf(scheduler);
  // Answers go through sendReply: an operator tool that stopped waiting has removed its reply queue.
  const commands = new OperatorCommandHandler(engine, { send: (queue, message) => bus.sendReply(queue, message) }, logger);
  const replies = bus.consume({
    queue: QueueNames.schedulerReplies,
    schema: AgentReply,
    concurrency: config.REPLY_CONCURRENCY,
    handle: async (reply) => {
      await scheduler.onReply(reply);
    },
  });
  bus.consume({
    queue: QueueNames.schedulerReady,
    schema: SchedulerWakeup,
    // Each wake-up claims its own process (conditional writes keep two claims of one process apart).
    concurrency: config.WAKEUP_CONCURRENCY,
    handle: (wakeup) => scheduler.onWakeup(wakeup),
  });
  bus.consume({
    queue: QueueNames.operatorCommands,
    schema: OperatorCommand,
    concurrency: 1,
    handle: async (command, meta) => {
      await commands.handle(command, meta.jobId);
      // Not awaited: a claim round busy with a burst of wake-ups must not hold the next command back.
      void scheduler.claimAvailable();
    },
  });
  const signals = new SignalHandler(engine, svc.store, { send: (queue, message) => bus.sendReply(queue, message) }, logger);
  registerSignalCounters(svc.metrics, signals);
  // A consumed signal may have started the next entry or released the process: claim without waiting for the poll.
  consumeSignals(bus, signals, () => void scheduler.claimAvailable());
  scheduler.start();
  // A submission role hosted in this same process (sas up's shared core) hands its new processes here.
  const withdrawLocalClaims = offerLocalClaims(config, (copy) => scheduler.claimHandedOver(copy));
  const registrations = new AgentRegistrationRepository(svc.connection.db);
  const coverage = scheduleAgentCoverageCheck({ registry: svc.registry, registrations, outbox: svc.outbox, clock: svc.clock, logger }, config.AGENT_CHECK_DELAY_MS);
  const releaser = new HeldWorkReleaser({
    engine,
    store: svc.store,
    pauses: svc.pauses,
    clock: svc.clock,
    logger,
    ratePerSecond: config.RELEASE_RATE,
    intervalMs: config.RELEASE_INTERVAL_MS,
    // Ten readings of the pause cache: every scheduler has seen the resume long before the window closes.
    cadence: { fastWindowMs: Math.max(10_000, 10 * config.PAUSE_CACHE_MS) },
  });
  registerHeldWorkCounters(svc.metrics, releaser);
  releaser.start();
  const jobs = await startJobScheduling(svc, config);
  if (jobs) registerJobRunnerCounters(svc.metrics, jobs.runner);
  const bulk = await startBulkOperations(svc, config, commands, () => void scheduler.claimAvailable());
  const probe = new ProbeServer({ ready: () => svc.connectionsReady() && replies.isRunning(), registry: svc.metrics });
  // The bound port is logged in the ready line: the readiness signal for whoever started this process.
  const probePort = config.PROBE_PORT >= 0 ? await probe.start(config.PROBE_PORT, config.PROBE_HOST) : null;
  return {
    logger,
    closables: [
      // First: closing the job runner gives its lease up, so a standby fires the next occurrence on time.
      ...(jobs ? [jobs] : []),
      coverage,
      {
        name: 'scheduler',
        close: () => {
          withdrawLocalClaims();
          return scheduler.close();
        },
      },
      { name: 'held-work-releaser', close: () => releaser.close() },
      bulk,
      { name: 'probe', close: () => probe.close() },
      ...svc.closables,
    ],
    ready: () => logger.info({ workflows: svc.registry.list(), probePort }, 'scheduler ready'),
  };
});
