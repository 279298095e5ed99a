import type { Logger } from 'pino';
import { closeAll, type Closable } from './close-all';

/**
 * The shutdown of a service process, installed before it starts anything, so that SIGTERM or
 * SIGINT at any moment of start-up ends it cleanly: what has started so far is {@link hold}-held,
 * and a signal that comes while start-up is still running is answered once it is over
 * ({@link started}): what started is closed and the process exits 0 (1 when a component did not
 * close). Start-up is left to finish rather than cut short, because a main interrupted half-way
 * would leave what it opened after the cut unclosed; {@link ProcessShutdown.requested} lets it
 * skip what is left. A start-up that never ends is bounded by the same deadline as the close.
 * A second signal exits at once.
 */
export class ProcessShutdown {
  private held: readonly Closable[] = [];
  private logger: Logger | undefined;
  private starting = true;
  private signal: string | undefined;
  private closing = false;

  /**
   * @param fallbackLogger the logger for a signal that comes before anything is held (the service's
   *   own logger may not exist yet)
   */
  constructor(
    private readonly fallbackLogger: () => Logger,
    // As installShutdown's default, which the deployments' grace periods are checked against (test/static).
    private readonly timeoutMs = 10_000,
  ) {
    // `on`, not `once`: a second signal must reach this handler, not the default (exit by signal).
    process.on('SIGTERM', () => this.onSignal('SIGTERM'));
    process.on('SIGINT', () => this.onSignal('SIGINT'));
  }

  /** True once SIGTERM or SIGINT came: whatever is still starting should start nothing more. */
  get requested(): boolean {
    return this.signal !== undefined;
  }

  /** Adds a started part, closed before the parts held earlier (the reverse of start order); `logger` logs the shutdown from now on. */
  hold(logger: Logger, closables: readonly Closable[]): void {
    this.logger = logger;
    this.held = [...closables, ...this.held];
  }

  /** Start-up is over and all it started is held: a signal that came meanwhile is answered now. */
  started(): void {
    this.starting = false;
    if (this.signal !== undefined) this.close();
  }

  /** Start-up failed after it had started some parts: those are closed and the process exits 1. */
  fail(reason: string): void {
    if (this.closing) return;
    this.closing = true;
    const logger = this.log();
    logger.error({ reason }, 'start-up failed; closing what had started');
    this.exitAfter(false);
  }

  private onSignal(signal: string): void {
    const logger = this.log();
    if (this.signal !== undefined) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    this.signal = signal;
    logger.info({ signal, duringStartUp: this.starting }, this.starting ? 'shutting down once start-up has finished (a signal came while starting)' : 'shutting down');
    if (!this.starting) this.close();
    else this.armDeadline('start-up did not finish');
  }

  private close(): void {
    if (this.closing) return;
    this.closing = true;
    this.exitAfter(true);
  }

  private exitAfter(success: boolean): void {
    this.armDeadline('closing did not finish');
    const logger = this.log();
    void closeAll(logger, this.held).then((ok) => {
      logger.info({ ok }, 'shutdown complete');
      process.exit(ok && success ? 0 : 1);
    });
  }

  private armDeadline(what: string): void {
    const timer = setTimeout(() => {
      this.log().error({ timeoutMs: this.timeoutMs }, `shutdown timed out (${what}); exiting`);
      process.exit(1);
    }, this.timeoutMs);
    timer.unref();
  }

  private log(): Logger {
    return (this.logger ??= this.fallbackLogger());
  }
}
