import type { Logger } from 'pino';
import type { Clock } from './clock';

interface Stall {
  since: number;
}

/**
 * The waits on Redis and MongoDB that have outlasted their bound, right now. A watcher calls
 * {@link begin} on every check that finds its connection silent and {@link end} once it hears
 * from it again: the warning is logged when the stall starts (not when a driver timeout fires
 * much later), the recovery with how long it lasted, and `/readyz` reads {@link isClear} so an
 * orchestrator sees the instance unready for exactly as long as the stall lasts.
 */
export class StallBoard {
  private readonly stalls = new Map<string, Stall>();

  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  /** Marks `key` stalled; logs `message` (with `fields`) once, when the stall starts. */
  begin(key: string, message: string, fields: Record<string, unknown> = {}): void {
    if (this.stalls.has(key)) return;
    this.stalls.set(key, { since: this.clock.now() });
    this.logger.warn({ ...fields, stall: key }, message);
  }

  /** Clears `key`; logs how long it was stalled, if it was. */
  end(key: string, fields: Record<string, unknown> = {}): void {
    const stall = this.stalls.get(key);
    if (!stall) return;
    this.stalls.delete(key);
    const stalledMs = this.clock.now() - stall.since;
    this.logger.info({ ...fields, stall: key, stalledMs }, `${key}: heard again after a stall of ${stalledMs} ms (counted from when its bound was passed)`);
  }

  /** True while `key` is stalled. */
  has(key: string): boolean {
    return this.stalls.has(key);
  }

  /** The stalled keys, for `/readyz` and logs. */
  active(): string[] {
    return [...this.stalls.keys()];
  }

  /** True when nothing is stalled. */
  isClear(): boolean {
    return this.stalls.size === 0;
  }
}
