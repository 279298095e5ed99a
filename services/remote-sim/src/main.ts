import { createLogger, defaultInstanceId, installShutdown, loadConfig, systemClock } from '@sas/runtime';
import { RemoteSim } from './remote-sim';
import { RemoteSimConfig } from './remote-sim-config';
import { RemoteSimServer } from './remote-sim-server';
import { seededRandom } from './seeded-random';

/** Wires the simulator to the wall clock, a seeded PRNG and HTTP; launchers read the port from the `listening` line. */
async function main(): Promise<void> {
  const config = loadConfig(RemoteSimConfig, process.env);
  const instanceId = config.INSTANCE_ID ?? defaultInstanceId('remote-sim');
  const logger = createLogger({ service: 'remote-sim', instanceId, level: config.LOG_LEVEL });
  const sim = new RemoteSim({ clock: systemClock, random: seededRandom(config.SEED), logger, mode: config.REMOTE_SIM_MODE });
  const server = new RemoteSimServer({ sim, logger });
  const port = await server.start(config.PORT, config.HOST);
  const urlHost = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  logger.info({ port, url: `http://${urlHost}:${port}`, seed: config.SEED, mode: config.REMOTE_SIM_MODE }, 'listening');
  installShutdown(logger, [server]);
}

main().catch((err: unknown) => {
  // The logger may not exist yet (bad config), so write the reason where an operator will see it.
  process.stderr.write(`remote-sim failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
