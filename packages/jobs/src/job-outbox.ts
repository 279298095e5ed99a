/** Options of one message the job runner sends. */
export interface JobOutboxSendOptions {
  /** Deduplication id: the queue drops a second message with the same id. */
  jobId?: string;
}

/**
 * Where the job runner sends triggers and failure commands. `@sas/bus`'s `Bus` satisfies it; a
 * test or the simulation supplies one that records, fails or delays.
 */
export interface JobOutbox {
  send(queue: string, message: unknown, options?: JobOutboxSendOptions): Promise<void>;
}
