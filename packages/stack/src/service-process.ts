import type { LogFn } from './log-fn';
import { ManagedProcess, type ManagedProcessOptions } from './managed-process';
import { serviceNodeOptions } from './service-node-options';

/** Options of {@link ServiceProcess}. */
export interface ServiceProcessOptions {
  /** Name in logs and errors, e.g. `scheduler-1`. */
  name: string;
  /** Absolute path of the JavaScript entry point (see {@link serviceScript}). */
  script: string;
  /**
   * Merged over `process.env`, so the service sees REDIS_URL, MONGO_URL, ... of its stack. Its
   * NODE_OPTIONS (else the caller's) comes after the services' heap limit ({@link serviceNodeOptions}).
   */
  env?: NodeJS.ProcessEnv;
  /** Every output line is appended here, so a failed test leaves a readable log behind. */
  logFile?: string;
  /** Told about unexpected exits. */
  log?: LogFn;
  /** Told of every exit (see {@link ManagedProcessOptions.onExit}). */
  onExit?: ManagedProcessOptions['onExit'];
  /**
   * Its own process group, so a terminal's Ctrl-C reaches only the launcher, which then stops its
   * services in order (`sas up`). @default false
   */
  ownProcessGroup?: boolean;
}

/**
 * One of our services running as a real `node` process, as in production: tests crash it with
 * `kill()`, bring it back with `restart()`, and wait on its pino log lines with `waitForLine()`.
 * It runs with the same Node binary as the caller (`process.execPath`), so a PATH without `node`
 * still works.
 *
 * @example
 * ```ts
 * const scheduler = new ServiceProcess({ name: 'scheduler-1', script, env: stack.env });
 * await scheduler.start();
 * await scheduler.waitForLine((l) => l.json?.msg === 'started', 10_000, 'scheduler start');
 * await scheduler.kill(); // crash
 * await scheduler.restart();
 * ```
 */
export class ServiceProcess extends ManagedProcess {
  /** The entry point this process runs. */
  readonly script: string;

  constructor(options: ServiceProcessOptions) {
    super({
      name: options.name,
      command: process.execPath,
      args: [options.script],
      env: { ...options.env, NODE_OPTIONS: serviceNodeOptions(options.env?.['NODE_OPTIONS'] ?? process.env['NODE_OPTIONS']) },
      logFile: options.logFile,
      log: options.log,
      onExit: options.onExit,
      ownProcessGroup: options.ownProcessGroup,
    });
    this.script = options.script;
  }
}
