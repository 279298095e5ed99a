/** What {@link QueueCache} needs of a cached handle. */
export interface Closable {
  close(): Promise<void>;
}

/**
 * Queue handles by name, bounded. A service sends to an open-ended set of queues (every
 * application's `replyTo`, every operator tool's private reply queue), so caching a BullMQ
 * `Queue` per name for ever would grow without end. Pinned handles (the system queues a tool
 * inspects) stay; the rest are kept least-recently-used, and an evicted handle is closed only
 * once the sends using it have finished.
 */
export class QueueCache<Q extends Closable> {
  private readonly pinned = new Map<string, Q>();
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly recent = new Map<string, Q>();
  private readonly inUse = new Map<Q, number>();
  private readonly retired = new Set<Q>();
  private readonly closings = new Set<Promise<void>>();

  constructor(
    private readonly capacity: number,
    private readonly open: (name: string) => Q,
  ) {}

  /** A handle that stays until {@link closeAll}. */
  pin(name: string): Q {
    let q = this.pinned.get(name);
    if (!q) {
      q = this.recent.get(name) ?? this.open(name);
      this.recent.delete(name);
      this.pinned.set(name, q);
    }
    return q;
  }

  /** Runs `use` with the queue's handle, which is not closed while `use` runs. */
  async with<T>(name: string, use: (q: Q) => Promise<T>): Promise<T> {
    const q = this.pinned.get(name) ?? this.take(name);
    this.inUse.set(q, (this.inUse.get(q) ?? 0) + 1);
    try {
      return await use(q);
    } finally {
      const left = (this.inUse.get(q) ?? 1) - 1;
      if (left > 0) this.inUse.set(q, left);
      else {
        this.inUse.delete(q);
        if (this.retired.delete(q)) this.closeLater(q);
      }
    }
  }

  /** Handles held now (pinned and recent), for tests and metrics. */
  size(): number {
    return this.pinned.size + this.recent.size;
  }

  async closeAll(): Promise<void> {
    const all = [...this.pinned.values(), ...this.recent.values(), ...this.retired];
    this.pinned.clear();
    this.recent.clear();
    this.retired.clear();
    await Promise.allSettled([...all.map((q) => q.close()), ...this.closings]);
  }

  private take(name: string): Q {
    let q = this.recent.get(name);
    if (q) this.recent.delete(name);
    else q = this.open(name);
    this.recent.set(name, q);
    while (this.recent.size > this.capacity) {
      const [oldest, handle] = this.recent.entries().next().value as [string, Q];
      this.recent.delete(oldest);
      if (this.inUse.has(handle)) this.retired.add(handle);
      else this.closeLater(handle);
    }
    return q;
  }

  private closeLater(q: Q): void {
    const closing: Promise<void> = q
      .close()
      .catch(() => undefined)
      .finally(() => this.closings.delete(closing));
    this.closings.add(closing);
  }
}
