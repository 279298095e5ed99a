/**
 * Options of one send, as `@sas/engine`'s `OutboxSendOptions` declares them. Declared here by
 * shape so testkit needs no dependency on the engine; a `RecordingOutbox` still satisfies `Outbox`.
 */
export interface RecordedSendOptions {
  /** Deduplication id: the queue drops a second send with the same id. */
  jobId?: string;
  delayMs?: number;
}

/** One message a {@link RecordingOutbox} was asked to send. */
export interface SentMessage {
  queue: string;
  message: unknown;
  options: RecordedSendOptions | undefined;
}

/**
 * An `Outbox` (see `@sas/engine`) that keeps every send in order instead of touching Redis, so a
 * component test can assert exactly what went to which queue, with which job id. Setting
 * `failWith` makes every send throw it, as a Redis outage would.
 *
 * @example
 * ```ts
 * const outbox = new RecordingOutbox();
 * const engine = new ProcessEngine({ outbox, ... });
 * await engine.apply('p-1', { type: 'claim' });
 * expect(outbox.to('agent.inventory.requests')).toHaveLength(1);
 * ```
 */
export class RecordingOutbox {
  readonly sent: SentMessage[] = [];
  /** When set, every send throws this error and records nothing. @default undefined */
  failWith: Error | undefined;

  async send(queue: string, message: unknown, options?: RecordedSendOptions): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.sent.push({ queue, message, options });
  }

  /** The sends to one queue, in order, with their options. */
  to(queue: string): SentMessage[] {
    return this.sent.filter((s) => s.queue === queue);
  }

  /** Only the message bodies sent to one queue, for asserting on content alone. */
  messagesTo(queue: string): unknown[] {
    return this.to(queue).map((s) => s.message);
  }

  /** Removes and returns the sends that match, as a consumer taking them off its queue would. */
  take(match: (sent: SentMessage) => boolean): SentMessage[] {
    const taken = this.sent.filter(match);
    const kept = this.sent.filter((s) => !match(s));
    this.sent.splice(0, this.sent.length, ...kept);
    return taken;
  }

  /** Forgets everything sent so far, so a test asserts only on what comes next. */
  clear(): void {
    this.sent.length = 0;
  }
}
