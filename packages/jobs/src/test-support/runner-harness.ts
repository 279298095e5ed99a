import type { Clock } from '@sas/runtime';
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

/** An outbox that records, and fails the queues it is told to fail. */
export class RecordingOutbox implements JobOutbox {
  readonly sent: SentMessage[] = [];
  readonly failing = new Set<string>();

  async send(queue: string, message: unknown, options?: JobOutboxSendOptions): Promise<void> {
    if (this.failing.has(queue)) throw new Error(`queue ${queue} is unavailable`);
    this.sent.push({ queue, message: message as Record<string, unknown>, jobId: options?.jobId });
  }

  to(queue: string): SentMessage[] {
    return this.sent.filter((m) => m.queue === queue);
  }
}

/** The in-memory lease and the lease everyone holds are shared with the supervisor's tests. */
export { InMemoryLease, everyoneLeads } from '@sas/testkit';

/** A logger that writes nothing. */
export const silentLogger: Logger = pino({ level: 'silent' });
