/** Options of one outgoing message. */
export interface OutboxSendOptions {
  /** Deduplication id: a second send with the same id is dropped by the queue. */
  jobId?: string;
  delayMs?: number;
}

/**
 * Whether messages a delivery sent are held by a replica as well as by the node that acknowledged
 * them. Taken before the sends ({@link Outbox.replicaCheck}), asked once they all succeeded.
 */
export interface ReplicaCheck {
  /** True once a replica of every node written to has confirmed the sends; false when none did in time (the caller keeps them owed). Never throws. */
  confirmed(): Promise<boolean>;
}

/**
 * Where components send messages. `@sas/bus`'s `Bus` satisfies it; a simulation supplies
 * queues that delay, duplicate and reorder.
 */
export interface Outbox {
  send(queue: string, message: unknown, options?: OutboxSendOptions): Promise<void>;
  /**
   * Called before a delivery sends to `queues`; undefined when there is nothing to confirm (one
   * Redis, or nodes without replicas), and then the sends' acknowledgement is the whole delivery.
   * Redis replicates asynchronously: a send a master acknowledged can vanish with it when its
   * replica takes over, so where replicas exist an outbox is emptied only once one confirmed them.
   * @default absent: nothing to confirm
   */
  replicaCheck?(queues: readonly string[]): ReplicaCheck | undefined;
}
