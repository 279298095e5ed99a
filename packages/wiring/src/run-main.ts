import { ProcessShutdown, createLogger, defaultInstanceId, type Closable, type Logger } from '@sas/runtime';
import { waitForConnections } from './connections-wait';
import { startService } from './starting-service';

/** A service once started by its {@link ServiceMain}: what its shutdown closes, and its ready line. */
export interface StartedService {
  logger: Logger;
  /** In the order shutdown closes them: the service's own components first, then bus, store, tracing. */
  closables: readonly Closable[];
  /** Logs the service's ready line, the readiness signal launchers wait for; called once shutdown is installed. */
  ready(): void;
}

/** Starts a service from an environment (as `process.env`), without installing a shutdown of its own. */
export type ServiceMain = (env: NodeJS.ProcessEnv) => Promise<StartedService>;

/** Where a {@link ServiceHost} waits for the mains of the service modules it loads. */
const HOST_KEY = Symbol.for('@sas/wiring.service-host');

/** Collects the mains of the service modules loaded while it is installed (see {@link collectServiceMains}). */
interface ServiceHost {
  register(service: string, main: ServiceMain): void;
}

/**
 * A service's main module calls this on import. Alone in its process (a container, `node dist/main.js`,
 * `sas scheduler`), it installs the shutdown on SIGTERM/SIGINT first, runs `main` with
 * `process.env`, waits until the connections `main` opened are up (`connectionsReady`) and then
 * logs the ready line; a signal at any moment of that closes what started and exits 0 (see
 * `ProcessShutdown`). A start-up failure becomes one readable line on stderr and exit code 1 (the
 * logger may not exist yet when configuration is wrong). Loaded by a process that hosts several
 * roles ({@link collectServiceMains}), it only hands `main` over: that process starts it and owns
 * the one shutdown.
 */
export function runMain(service: string, main: ServiceMain): void {
  // A global, not a module variable: the host must see a service that resolved its own copy of this package.
  const host = (globalThis as { [HOST_KEY]?: ServiceHost })[HOST_KEY];
  if (host) {
    host.register(service, main);
    return;
  }
  const early = startUpLogger(service, process.env);
  const shutdown = new ProcessShutdown(() => early);
  // From here a signal is this process's to answer: the line says so to whoever waits on it.
  early.info(`${service} starting`);
  const report = (e: unknown): string => {
    const reason = e instanceof Error ? e.message : String(e);
    process.stderr.write(`${service} failed to start: ${reason}\n`);
    return reason;
  };
  const { result, connections } = startService(() => main(process.env));
  result
    .then(
      async (started) => {
        shutdown.hold(started.logger, started.closables);
        shutdown.started();
        if ((await waitForConnections(service, started.logger, connections, { stopped: () => shutdown.requested })) === 'up') started.ready();
      },
      (e: unknown) => {
        report(e);
        // Nothing is held: what the failed main had opened goes with the process.
        process.exit(1);
      },
    )
    .catch((e: unknown) => shutdown.fail(report(e)));
}

/** A logger for the lines before the service's own exists; a bad LOG_LEVEL is the service's to report, so it falls back to info. */
function startUpLogger(service: string, env: NodeJS.ProcessEnv): Logger {
  const instanceId = env['INSTANCE_ID'] || defaultInstanceId(service);
  try {
    return createLogger({ service, instanceId, level: env['LOG_LEVEL'] ?? 'info' });
  } catch {
    return createLogger({ service, instanceId, level: 'info' });
  }
}

/**
 * Loads service main modules (`load` requires them) without starting them, and returns each one's
 * main by the service name it gave {@link runMain}. Throws when a loaded module did not call runMain
 * or called it twice, naming it.
 */
export function collectServiceMains(load: () => void): Map<string, ServiceMain> {
  const global = globalThis as { [HOST_KEY]?: ServiceHost };
  if (global[HOST_KEY]) throw new Error('collectServiceMains is already loading services in this process');
  const mains = new Map<string, ServiceMain>();
  global[HOST_KEY] = {
    register: (service, main) => {
      if (mains.has(service)) throw new Error(`Two modules register the service '${service}'; each role is loaded once per process`);
      mains.set(service, main);
    },
  };
  try {
    load();
  } finally {
    delete global[HOST_KEY];
  }
  return mains;
}
