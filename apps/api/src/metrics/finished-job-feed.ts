import type { RedisConnection } from '@agentq/store';
import type { Job, Queue } from 'bullmq';

/**
 * How far below the newest finish already seen a job's finish may land and still be counted. A
 * worker stamps `finishedOn` with its own clock before its write reaches Redis, so one worker's job
 * can land after a scrape has seen a later stamp of another's: write latency, or clocks apart.
 */
export const FINISHED_JOB_LOOK_BACK_MS = 60_000;

/**
 * Hands out each finished job of a queue once. Metrics are gathered from Redis at scrape time, so an
 * API process counts the runs of every worker process, including those that finished before it
 * started (up to `backlog`).
 *
 * Each call reads the finished set's ids with their finish times (one read, so a job finishing
 * meanwhile cannot shift a page under it) from {@link FINISHED_JOB_LOOK_BACK_MS} below the newest
 * finish seen so far, and remembers what it handed out within that window: a job whose stamp lands
 * below one already counted is counted when it arrives, and none twice. Only a job stamped more than
 * the look-back below the newest one seen, or past `backlog` in one call, is missed.
 */
export class FinishedJobFeed {
  private watermark = 0;
  /** `id@finishedOn` of the jobs handed out within the look-back (a reused id finishes anew). */
  private readonly seen = new Map<string, number>();

  constructor(
    /** A connection to the queue's Redis (any command connection: one read per call). */
    private readonly redis: RedisConnection,
    private readonly queue: Queue,
    private readonly state: 'completed' | 'failed',
    private readonly backlog = 1_000,
    private readonly lookBackMs = FINISHED_JOB_LOOK_BACK_MS,
  ) {}

  /** Jobs that finished since the previous call. */
  async next(): Promise<Job[]> {
    const floor = this.watermark === 0 ? '-inf' : String(this.watermark - this.lookBackMs);
    // The finished sets are scored by `finishedOn`.
    const flat = await this.redis.zrevrangebyscore(
      this.queue.toKey(this.state),
      '+inf',
      floor,
      'WITHSCORES',
      'LIMIT',
      0,
      this.backlog,
    );
    const unseen: Array<{ id: string; key: string; finishedOn: number }> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const id = flat[index] as string;
      const finishedOn = Number(flat[index + 1]);
      const key = `${id}@${finishedOn}`;
      if (!this.seen.has(key)) unseen.push({ id, key, finishedOn });
    }
    const jobs = await Promise.all(unseen.map(async ({ id }) => await this.queue.getJob(id)));
    const fresh: Job[] = [];
    unseen.forEach(({ key, finishedOn }, index) => {
      this.seen.set(key, finishedOn);
      this.watermark = Math.max(this.watermark, finishedOn);
      const job = jobs[index];
      // Removed since it was listed: there is nothing left to count.
      if (job?.id) fresh.push(job);
    });
    const oldest = this.watermark - this.lookBackMs;
    for (const [key, finishedOn] of this.seen) if (finishedOn < oldest) this.seen.delete(key);
    return fresh;
  }
}
