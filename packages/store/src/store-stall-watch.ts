import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, Db, MongoClient } from 'mongodb';

/** Where the watch reports (a `StallBoard` of `@sas/runtime`; the store does not depend on it). */
export interface StallReporter {
  begin(key: string, message: string, fields?: Record<string, unknown>): void;
  end(key: string, fields?: Record<string, unknown>): void;
  has(key: string): boolean;
}

/** Options of {@link StoreStallWatch}. */
export interface StoreStallWatchOptions {
  client: MongoClient;
  db: Db;
  stalls: StallReporter;
  /** A call (or the watch's own ping) waiting longer than this is a stall. @default 3000 */
  stallMs?: number;
  /**
   * A call still unanswered after this is forgotten (the driver failed it without a monitoring
   * event), so a lost event cannot hold `/readyz` unready for good. @default 60000
   */
  forgetAfterMs?: number;
  now?: () => number;
}

/** The stall key the watch reports under. */
const STORE_STALL_KEY = 'mongo';

interface InFlight {
  at: number;
  collection: string;
}

/**
 * Notices while it happens that MongoDB keeps this process waiting: a command sent and not
 * answered, or the watch's own `ping` (every second) not answered, for longer than `stallMs`.
 * The driver would say nothing until its socket or selection timeout fired; this logs a warning
 * naming the collections whose calls wait and holds `/readyz` unready until MongoDB answers again.
 * It reads the driver's command monitoring (the client must be created with `monitorCommands`).
 */
export class StoreStallWatch {
  private readonly inFlight = new Map<number, InFlight>();
  private readonly timer: NodeJS.Timeout;
  private readonly stallMs: number;
  private readonly now: () => number;
  private pingSince: number | undefined;
  /** Why the last ping failed; undefined once one is answered. */
  private pingFailure: string | undefined;
  private stopped = false;

  constructor(private readonly options: StoreStallWatchOptions) {
    this.stallMs = options.stallMs ?? 3_000;
    this.now = options.now ?? Date.now;
    const { client } = options;
    client.on('commandStarted', (e: CommandStartedEvent) => {
      const target: unknown = e.command[e.commandName];
      this.inFlight.set(e.requestId, { at: this.now(), collection: typeof target === 'string' ? target : `(${e.commandName})` });
    });
    const settled = (e: CommandSucceededEvent | CommandFailedEvent): void => {
      this.inFlight.delete(e.requestId);
    };
    client.on('commandSucceeded', settled);
    client.on('commandFailed', settled);
    this.timer = setInterval(() => this.tick(), Math.min(1_000, Math.max(50, Math.floor(this.stallMs / 3))));
    this.timer.unref();
  }

  /** True while a call to MongoDB has waited past the bound. */
  isStalled(): boolean {
    return this.options.stalls.has(STORE_STALL_KEY);
  }

  private tick(): void {
    const now = this.now();
    for (const [id, call] of this.inFlight) if (now - call.at > (this.options.forgetAfterMs ?? 60_000)) this.inFlight.delete(id);
    const waiting = [...this.inFlight.values()].filter((c) => now - c.at > this.stallMs);
    const pingWaitMs = this.pingSince === undefined ? 0 : now - this.pingSince;
    if (waiting.length > 0 || pingWaitMs > this.stallMs || this.pingFailure !== undefined) {
      const collections = [...new Set(waiting.map((c) => c.collection))].sort();
      const longestMs = Math.max(pingWaitMs, ...waiting.map((c) => now - c.at));
      const where = collections.length > 0 ? ` on ${collections.join(', ')}` : this.pingFailure ? ` (ping failed: ${this.pingFailure})` : ' (no server answers)';
      this.options.stalls.begin(
        STORE_STALL_KEY,
        `store calls have waited for MongoDB for ${longestMs} ms (bound ${this.stallMs} ms)${where}; they fail at the driver's timeouts and are retried`,
        { collections, waitingCalls: waiting.length, longestMs, stallMs: this.stallMs },
      );
    } else {
      this.options.stalls.end(STORE_STALL_KEY);
    }
    if (this.pingSince !== undefined || this.stopped) return;
    const since = now;
    this.pingSince = since;
    this.options.db
      .command({ ping: 1 })
      .then(() => {
        this.pingFailure = undefined;
      })
      .catch((e: unknown) => {
        this.pingFailure = e instanceof Error ? e.message : String(e);
      })
      .finally(() => {
        if (this.pingSince === since) this.pingSince = undefined;
      });
  }

  /** Stops watching (the connection is being closed on purpose). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.options.stalls.end(STORE_STALL_KEY);
  }
}
