import { randomUUID } from 'node:crypto';
import { QueueNames, SubmissionMessage } from '@sas/contracts';
import { ProbeServer, loadConfig } from '@sas/runtime';
import { claimLocally, openProcessService, runMain } from '@sas/wiring';
import { SubmissionConfig } from './config';
import { SubmissionHandler } from './submission-handler';

runMain('submission', async (env) => {
  const config = loadConfig(SubmissionConfig, env);
  const svc = await openProcessService('submission', config);
  const { bus, logger } = svc;
  const handler = new SubmissionHandler({
    store: svc.store,
    outbox: svc.outbox,
    deadLetters: bus,
    registry: svc.registry,
    clock: svc.clock,
    newId: randomUUID,
    logger,
    tracing: svc.tracing,
    // A scheduler hosted in this same process (sas up's shared core) claims new processes directly.
    claimHere: (copy) => claimLocally(config, copy),
  });
  const consumer = bus.consume({
    queue: QueueNames.submission,
    schema: SubmissionMessage,
    concurrency: config.CONCURRENCY,
    handle: async (message) => {
      await handler.handle(message);
    },
    onRejected: (raw, reason, issues) => handler.answerRejected(raw, reason, issues),
  });
  const probe = new ProbeServer({ ready: () => svc.connectionsReady() && consumer.isRunning(), registry: svc.metrics });
  // The bound port is logged in the ready line: the readiness signal for whoever started this process.
  const probePort = config.PROBE_PORT >= 0 ? await probe.start(config.PROBE_PORT, config.PROBE_HOST) : null;
  return {
    logger,
    closables: [{ name: 'probe', close: () => probe.close() }, ...svc.closables],
    ready: () => logger.info({ queue: QueueNames.submission, workflows: svc.registry.list(), probePort }, 'submission ready'),
  };
});
