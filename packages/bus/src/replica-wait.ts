import type { Cluster, Redis } from 'ioredis';
import { keySlot } from './key-slot';

/** See {@link ReplicaWait.begin}. */
export interface ReplicaConfirmation {
  /** True once a replica of each node confirmed the writes made to it since {@link ReplicaWait.begin}; never throws. */
  confirmed(): Promise<boolean>;
}

/** The node connection that serves one slot, as it was when the sends began. */
interface Mark {
  slot: number;
  node: Redis;
  socket: unknown;
}

/** A confirmation that cannot be had (the cluster's slot map is not known yet): the caller keeps its messages owed. */
const UNCONFIRMABLE: ReplicaConfirmation = { confirmed: () => Promise.resolve(false) };

/**
 * Waits until a replica holds what was written to a Redis Cluster's masters (`WAIT 1 timeout`).
 * Redis replicates asynchronously: a master acknowledges a write before any replica has it, so a
 * failover right then promotes a replica without it, and the acknowledged write is gone.
 *
 * `WAIT` has no key and counts the writes of the connection it is sent on (the server remembers
 * each client's replication offset after its last write). ioredis's `Cluster` keeps one `Redis`
 * connection per node and sends every command for a slot over the one of the slot's master; a
 * BullMQ `Queue` given that `Cluster` (the bus's producer) sends its scripts through it, so the
 * writes of a send and the `WAIT` after it travel over that one connection, obtained here from
 * `cluster.nodes('master')`, which returns the pool's own connections. If the slot moved to
 * another node, or the connection was opened again (a new socket: its offset starts over and would
 * confirm nothing), between {@link begin} and the answer, the writes may have gone elsewhere and
 * nothing is confirmed.
 *
 * A slot whose master has no replica in the client's slot map gets no `WAIT`: nothing could take
 * over without the writes (a master that is down stays so until it comes back with its own data).
 * The slot map comes from `CLUSTER SLOTS`, which lists the replicas that could take over (not the
 * failed ones, nor one that never synced), whether or not their link is up at the moment; ioredis
 * reads it only when it connects or is redirected, so it is read again every `refreshMs` here: a
 * replica that joins is waited for from then on. A replica that does not answer costs one timeout,
 * during which the node's connection carries no other command (the server holds the client in
 * `WAIT`), until the slot map drops it.
 */
export class ReplicaWait {
  private readonly refresh: NodeJS.Timeout;

  constructor(
    private readonly cluster: Cluster,
    private readonly timeoutMs: number,
    refreshMs = 2_000,
  ) {
    // Unreferenced: the timer must not keep a process (a CLI) alive; close() stops it.
    this.refresh = setInterval(() => cluster.refreshSlotsCache(), refreshMs).unref();
  }

  /** Stops reading the slot map again. Idempotent. */
  close(): void {
    clearInterval(this.refresh);
  }

  /**
   * Called before writing to `keys`: undefined when no key's master has a replica (nothing to
   * wait for), otherwise a confirmation to ask once the writes were acknowledged.
   */
  begin(keys: readonly string[]): ReplicaConfirmation | undefined {
    const marks: Mark[] = [];
    for (const slot of new Set(keys.map(keySlot))) {
      const nodeKeys = this.cluster.slots[slot];
      if (!nodeKeys || nodeKeys.length === 0) return UNCONFIRMABLE;
      if (nodeKeys.length < 2) continue;
      const node = this.masterOf(slot);
      if (!node) return UNCONFIRMABLE;
      marks.push({ slot, node, socket: node.stream });
    }
    if (marks.length === 0) return undefined;
    return { confirmed: async () => (await Promise.all(marks.map((m) => this.confirm(m)))).every(Boolean) };
  }

  private async confirm(mark: Mark): Promise<boolean> {
    if (!this.unchanged(mark)) return false;
    try {
      const acked = await mark.node.call('WAIT', 1, this.timeoutMs);
      // ioredis sends a command again on a new socket after a reconnect: that WAIT would count nothing.
      return typeof acked === 'number' && acked >= 1 && this.unchanged(mark);
    } catch {
      // The node is gone, or is a replica now ("WAIT cannot be used with replica instances").
      return false;
    }
  }

  /** Same master for the slot, over the same socket, and up. */
  private unchanged(mark: Mark): boolean {
    return this.masterOf(mark.slot) === mark.node && mark.node.stream === mark.socket && mark.node.status === 'ready';
  }

  /** The pool's connection to the slot's master, matched by the `host:port` key ioredis keeps the slot map in. */
  private masterOf(slot: number): Redis | undefined {
    const key = this.cluster.slots[slot]?.[0];
    return key === undefined ? undefined : this.cluster.nodes('master').find((n) => `${n.options.host ?? ''}:${String(n.options.port)}` === key);
  }
}
