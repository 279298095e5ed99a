import { Queue } from 'bullmq';
import { createRedisConnection, type RedisConnection } from '@sas/client';
import { queueKeyPrefix } from '@sas/contracts';
import type { OutputLine } from '@sas/stack';

/**
 * Counts the arrivals of a persistent job's triggers at the queue they are sent to, per fire time,
 * from the queue's BullMQ event stream. An arrival is every `add` that reached the queue: `added`
 * (a new BullMQ job) or `duplicated` (BullMQ dropped it because a job with that id is still
 * there). So a second firing of one fire time counts twice even though its job id, orderId and
 * payload are the same as the first's and nothing downstream could tell them apart.
 */
export class JobArrivals {
  private readonly redis: RedisConnection;
  private readonly queue: Queue;

  constructor(redisUrl: string, queuePrefix: string, queueName: string) {
    this.redis = createRedisConnection(redisUrl);
    this.redis.on('error', () => undefined); // the test's Redis stays up; a stray error must not crash the run
    this.queue = new Queue(queueName, { connection: this.redis, prefix: queueKeyPrefix(queuePrefix, queueName) });
  }

  /** Arrivals per fire time (epoch ms) of the job whose stored `_id` is `jobId`: its BullMQ ids are `job.<_id>.<fire time ms>`. */
  async perFireTime(jobId: string): Promise<Map<number, number>> {
    const entries = await this.redis.xrange(this.queue.keys['events'] ?? '', '-', '+');
    const prefix = `job.${jobId}.`;
    const counts = new Map<number, number>();
    for (const [, fields] of entries) {
      const field = (name: string): string | undefined => fields[fields.indexOf(name) + 1];
      const event = field('event');
      const id = field('jobId') ?? '';
      if ((event !== 'added' && event !== 'duplicated') || !id.startsWith(prefix)) continue;
      const fireTime = Number(id.slice(prefix.length));
      counts.set(fireTime, (counts.get(fireTime) ?? 0) + 1);
    }
    return counts;
  }

  async close(): Promise<void> {
    await this.queue.close();
    this.redis.disconnect();
  }
}

/**
 * Fire times of job `key` that a scheduler logged as redone because the runner that claimed them
 * stopped (was killed) before settling them. Such a firing is sent again (at-least-once); BullMQ
 * drops the copy by job id, but it is a second arrival, which a test may excuse for these alone.
 */
export function redoneFireTimes(lines: readonly OutputLine[], key: string): Set<number> {
  const redone = lines.filter((l) => l.json?.['msg'] === 'redoing a firing whose runner stopped before settling it' && l.json['job'] === key);
  return new Set(redone.map((l) => Date.parse(String(l.json?.['fireTime']))));
}
