import { installShutdown, type Closable, type Logger } from '@sas/runtime';

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
 * `sas scheduler`), it runs `main` with `process.env`, installs the shutdown on SIGTERM/SIGINT and
 * logs the ready line; a start-up failure becomes one readable line on stderr and exit code 1 (the
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
  main(process.env).then(
    (started) => {
      installShutdown(started.logger, started.closables);
      started.ready();
    },
    (e: unknown) => {
      process.stderr.write(`${service} failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
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
