import { Cluster } from 'ioredis';
import type { RedisConnection } from '@sas/client';
import type { Clock, StallBoard } from '@sas/runtime';

/** Options of {@link RedisHeartbeat}. */
export interface RedisHeartbeatOptions {
  connection: RedisConnection;
  /** Stall key on the board, e.g. `redis:operator.commands`. */
  key: string;
  /** What is stalled, for the warning: `consumer of queue 'operator.commands'`. */
  what: string;
  /** Logged with the stall (the queue's name, at least). */
  fields: Record<string, unknown>;
  board: StallBoard;
  clock: Clock;
  /** Silence longer than this is a stall. */
  stallMs: number;
  /** How often to PING (and check). @default min(1000, stallMs / 3) */
  intervalMs?: number;
  /**
   * Connections over the same link that cannot be pinged (BullMQ's blocking one waits in BZPOPMIN),
   * dropped together with this one when it is silent. @default none
   */
  alsoDrop?: () => readonly RedisConnection[];
}

/**
 * Pings one Redis connection and reports on a {@link StallBoard} while no reply has come for
 * longer than `stallMs`: a consumer cut from Redis is logged and makes `/readyz` unready while
 * the cut lasts, though BullMQ itself would say nothing until its own wait ends. The PINGs also
 * keep the socket's `socketTimeout` armed, so a silent link is dropped even while the consumer is
 * idle. One PING is in flight at a time.
 *
 * A connection silent past `stallMs` is not waited on until its socket timeout: its socket is
 * dropped at once (and again every `stallMs` while the silence lasts), and ioredis opens a new
 * one. Waiting would be worse than slow: a link that lost bytes (a middlebox that kept the
 * connection but dropped what it carried) leaves commands that will never be answered at the head
 * of the connection's reply queue, and once the link carries bytes again the next replies would be
 * matched to the wrong commands (seen in the partition tests: a job read from a PING's answer).
 */
export class RedisHeartbeat {
  private readonly timer: NodeJS.Timeout;
  private readonly intervalMs: number;
  private lastHeard: number;
  private lastTick: number;
  private inFlight = false;
  private stopped = false;
  private lastDropped = 0;

  constructor(private readonly options: RedisHeartbeatOptions) {
    this.lastHeard = options.clock.now();
    this.lastTick = this.lastHeard;
    this.intervalMs = options.intervalMs ?? Math.min(1_000, Math.max(50, Math.floor(options.stallMs / 3)));
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  /** True while the connection's silence exceeds its bound. */
  isStalled(): boolean {
    return this.options.board.has(this.options.key);
  }

  private tick(): void {
    const { board, clock, key, stallMs, what, fields, connection } = this.options;
    // A tick that comes late means this process was not running (a long GC pause, a starved CPU on
    // a loaded machine): the PING's answer may be sitting unread in the socket, because timers run
    // before I/O in Node's loop. That time is this process's silence, not Redis's, and dropping a
    // healthy connection for it would fail the commands in flight for nothing.
    const now = clock.now();
    const lateMs = now - this.lastTick - this.intervalMs;
    this.lastTick = now;
    if (lateMs > this.intervalMs) this.lastHeard += lateMs;
    const silentMs = now - this.lastHeard;
    if (silentMs > stallMs) {
      board.begin(key, `${what} has not heard from Redis for ${silentMs} ms (bound ${stallMs} ms); its connection is being re-established`, {
        ...fields,
        silentMs,
        stallMs,
        connection: connection.status,
      });
      this.dropSilentSocket(silentMs);
    }
    if (this.inFlight) return;
    this.inFlight = true;
    connection
      .ping()
      .then(() => {
        this.lastHeard = clock.now();
        if (!this.stopped) board.end(key, fields);
      })
      // An error is not an answer: the silence goes on until a PING is answered.
      .catch(() => undefined)
      .finally(() => {
        this.inFlight = false;
      });
  }

  /** Destroys the sockets of a connection that is up but silent; one already reconnecting is left to ioredis. */
  private dropSilentSocket(silentMs: number): void {
    const { connection, clock, stallMs } = this.options;
    if (clock.now() - this.lastDropped < stallMs) return;
    this.lastDropped = clock.now();
    const reason = new Error(`no reply from Redis for ${silentMs} ms; dropping the connection to open a new one`);
    for (const c of [connection, ...(this.options.alsoDrop?.() ?? [])]) {
      if (c.status !== 'ready' && c.status !== 'connect') continue;
      const nodes = c instanceof Cluster ? c.nodes() : [c];
      for (const node of nodes) node.stream?.destroy(reason);
    }
  }

  /** Stops pinging; the stall, if any, is cleared (the connection is being closed on purpose). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    this.options.board.end(this.options.key, this.options.fields);
  }
}
