import type { Clock } from '@sas/runtime';
import { pino, type Logger } from 'pino';
import type { JobLease } from '../job-lease';
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

/** The lease semantics of `LeaseRepository`, in memory, on the caller's clock. */
export class InMemoryLease implements JobLease {
  private readonly leases = new Map<string, { holder: string; expiresAt: number }>();

  async acquire(name: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const current = this.leases.get(name);
    if (current && current.holder !== holder && current.expiresAt > now.getTime()) return false;
    this.leases.set(name, { holder, expiresAt: now.getTime() + ttlMs });
    return true;
  }

  async release(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
  }
}

/** A lease every runner always holds: only the conditional writes stand between them. */
export const everyoneLeads: JobLease = { acquire: async () => true, release: async () => undefined };

/** A logger that writes nothing. */
export const silentLogger: Logger = pino({ level: 'silent' });
