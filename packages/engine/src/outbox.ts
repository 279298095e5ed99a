/** Options of one outgoing message. */
export interface OutboxSendOptions {
  /** Deduplication id: a second send with the same id is dropped by the queue. */
  jobId?: string;
  delayMs?: number;
}

/**
 * Where components send messages. `@sas/bus`'s `Bus` satisfies it; a simulation supplies
 * queues that delay, duplicate and reorder.
 */
export interface Outbox {
  send(queue: string, message: unknown, options?: OutboxSendOptions): Promise<void>;
}
