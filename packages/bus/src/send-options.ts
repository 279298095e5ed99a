/** Options of one send. */
export interface SendOptions {
  /** Deduplicates: BullMQ ignores a job whose id is already in the queue. */
  jobId?: string;
  /** Deliver no earlier than this many ms from now. */
  delayMs?: number;
}
