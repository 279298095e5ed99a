import { PermanentError, type Clock } from '@sas/runtime';
import { pino, type Logger } from 'pino';
import type { JobOutbox, JobOutboxSendOptions } from '../job-outbox';

/** A clock the test moves by hand. */
export class FakeClock implements Clock {
  constructor(private t: number) {}
  now(): number {
    return this.t;
  }
  set(iso: string): void {
    this.t = Date.parse(iso);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/** One message the runner sent. */
export interface SentMessage {
  queue: string;
  message: Record<string, unknown>;
  jobId: string | undefined;
}

/** An outbox that records, and fails the queues it is told to fail (transiently, or for good). */
export class RecordingOutbox implements JobOutbox {
  readonly sent: SentMessage[] = [];
  /** Every send, including the ones that threw. */
  readonly attempts: SentMessage[] = [];
  /** Queues whose sends throw a plain error, as a Redis blip does. */
  readonly failing = new Set<string>();
  /** Queues whose sends throw a `PermanentError`: the message can never be sent. */
  readonly refusing = new Set<string>();

  async send(queue: string, message: unknown, options?: JobOutboxSendOptions): Promise<void> {
    const sent = { queue, message: message as Record<string, unknown>, jobId: options?.jobId };
    this.attempts.push(sent);
    if (this.refusing.has(queue)) throw new PermanentError(`queue ${queue} refuses this message`);
    if (this.failing.has(queue)) throw new Error(`queue ${queue} is unavailable`);
    this.sent.push(sent);
  }

  to(queue: string): SentMessage[] {
    return this.sent.filter((m) => m.queue === queue);
  }
}

/** The in-memory lease and the lease everyone holds are shared with the supervisor's tests. */
export { everyoneLeads } from '@sas/testkit';
export { InMemoryLease } from '@sas/store';

/** A logger that writes nothing. */
export const silentLogger: Logger = pino({ level: 'silent' });
