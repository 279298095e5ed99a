/** How {@link RestartPolicy} spaces restarts and when it calls a crash loop. */
export interface RestartPolicyOptions {
  /** This many exits within {@link windowMs} is a crash loop: no more restarts. @default 5 */
  maxExits?: number;
  /** @default 60000 */
  windowMs?: number;
  /** The wait before the first restart; it doubles with each exit still inside the window. @default 1000 */
  baseDelayMs?: number;
  /** @default 15000 */
  maxDelayMs?: number;
}

/** What to do about one exit of a child: restart it after `delayMs`, or stop, as it is crash-looping. */
export type RestartDecision =
  | { readonly kind: 'restart'; readonly delayMs: number; /** This is restart number `restart` of the child. */ readonly restart: number }
  | { readonly kind: 'crash-loop'; readonly exits: number; readonly windowMs: number };

/**
 * When `sas up` restarts a child that died, as systemd's `Restart=on-failure` with
 * `StartLimitBurst`/`StartLimitIntervalSec` and Kubernetes' CrashLoopBackOff do: at once-ish after a
 * single crash (a kill -9 should cost seconds, not minutes), backing off while exits come close
 * together, and giving up on a crash loop (by default 5 exits in 60 s), because a child that cannot
 * stay up needs a person, not a faster loop. Pure: the caller gives the time.
 */
export class RestartPolicy {
  private readonly maxExits: number;
  private readonly windowMs: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly exits: number[] = [];
  private restarts = 0;

  constructor(options: RestartPolicyOptions = {}) {
    this.maxExits = options.maxExits ?? 5;
    this.windowMs = options.windowMs ?? 60_000;
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 15_000;
    if (this.maxExits < 1 || this.windowMs <= 0 || this.baseDelayMs < 0 || this.maxDelayMs < this.baseDelayMs) {
      throw new Error(`RestartPolicy: maxExits ≥ 1, windowMs > 0 and 0 ≤ baseDelayMs ≤ maxDelayMs (got ${JSON.stringify(options)})`);
    }
  }

  /** How many times the child was restarted so far. */
  get restartCount(): number {
    return this.restarts;
  }

  /** Records an exit at `now` (ms) and decides what follows it. */
  onExit(now: number): RestartDecision {
    this.exits.push(now);
    while (this.exits.length > 0 && (this.exits[0] as number) <= now - this.windowMs) this.exits.shift();
    const recent = this.exits.length;
    if (recent >= this.maxExits) return { kind: 'crash-loop', exits: recent, windowMs: this.windowMs };
    this.restarts += 1;
    const delayMs = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (recent - 1));
    return { kind: 'restart', delayMs, restart: this.restarts };
  }
}
