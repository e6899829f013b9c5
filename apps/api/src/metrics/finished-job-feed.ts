import { readFinishedJobs, type FinishedJobEntry, type RedisConnection } from '@agentq/store';
import type { Job, Queue } from 'bullmq';

/**
 * How far below the newest finish already seen a job's finish may land and still be counted. A
 * worker stamps `finishedOn` with its own clock before its write reaches Redis, so one worker's job
 * can land after a scrape has seen a later stamp of another's: write latency, or clocks apart.
 */
export const FINISHED_JOB_LOOK_BACK_MS = 60_000;

/** One finished job as its set lists it. */
interface Listed {
  id: string;
  key: string;
  finishedOn: number;
}

/** Limits of a {@link FinishedJobFeed}. */
export interface FinishedJobFeedLimits {
  /** Jobs the first call takes, the newest of those that finished before it. @default 1000 */
  startBacklog?: number;
  /**
   * Jobs a later call hands out at most (each is one more read of a job hash). @default 10000:
   * about 660 finishes a second at a 15 s scrape.
   */
  perCall?: number;
  /** @default {@link FINISHED_JOB_LOOK_BACK_MS} */
  lookBackMs?: number;
  /** Ids read per command of a later call's walk. @default 5000 */
  pageSize?: number;
}

/**
 * Hands out each finished job of a queue once. Metrics are gathered from Redis at scrape time, so an
 * API process counts the runs of every worker process, including the newest `startBacklog` of
 * those that finished before it started (and the others within the look-back of those, which
 * cannot be told from jobs whose write landed late).
 *
 * The first call takes the newest `startBacklog` of the finished set. Every later call reads the
 * set's ids with their finish times oldest first, a page at a time, from
 * {@link FINISHED_JOB_LOOK_BACK_MS} below the newest finish handed out so far, and remembers what
 * it handed out within that window: a job whose stamp lands below one already counted is counted
 * when it arrives, and none twice. A call hands out at most `perCall` jobs: the oldest, so what is
 * left lies above the last one handed out and the next call reads it. Only a job stamped more than
 * the look-back below the newest one handed out, or removed from the set (the queue's retention)
 * before a scrape reached it, is missed. Each call reads the whole look-back window again (ids and
 * scores only, `pageSize` a command).
 */
export class FinishedJobFeed {
  private watermark = 0;
  /** `id@finishedOn` of the jobs handed out within the look-back (a reused id finishes anew). */
  private readonly seen = new Map<string, number>();
  private readonly startBacklog: number;
  private readonly perCall: number;
  private readonly lookBackMs: number;
  private readonly pageSize: number;

  constructor(
    /** A connection to the queue's Redis (any command connection). */
    private readonly redis: RedisConnection,
    private readonly queue: Queue,
    private readonly state: 'completed' | 'failed',
    limits: FinishedJobFeedLimits = {},
  ) {
    this.startBacklog = limits.startBacklog ?? 1_000;
    this.perCall = limits.perCall ?? 10_000;
    this.lookBackMs = limits.lookBackMs ?? FINISHED_JOB_LOOK_BACK_MS;
    this.pageSize = limits.pageSize ?? 5_000;
  }

  /** Jobs that finished since the previous call. */
  async next(): Promise<Job[]> {
    const unseen = this.watermark === 0 ? await this.newest() : await this.since(this.watermark - this.lookBackMs);
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

  /** The newest `startBacklog` finished jobs (one read: the finished sets are scored by `finishedOn`). */
  private async newest(): Promise<Listed[]> {
    const page = await readFinishedJobs(this.redis, this.key(), { order: 'newest' }, this.startBacklog);
    return this.unseenOf(page, this.startBacklog);
  }

  /**
   * The oldest `perCall` jobs not handed out yet from `floor` up, a page at a time. A job added or
   * removed below the walk between two pages shifts it by one: an id read twice is handed out once,
   * and one stepped over is still unseen for the next call.
   */
  private async since(floor: number): Promise<Listed[]> {
    const unseen: Listed[] = [];
    const taken = new Set<string>();
    for (let offset = 0; unseen.length < this.perCall; offset += this.pageSize) {
      const page = await readFinishedJobs(this.redis, this.key(), { order: 'oldest', floor, offset }, this.pageSize);
      for (const entry of this.unseenOf(page, this.perCall - unseen.length)) {
        if (taken.has(entry.key)) continue;
        taken.add(entry.key);
        unseen.push(entry);
      }
      if (page.length < this.pageSize) break;
    }
    return unseen;
  }

  /** Up to `limit` entries of a page that were not handed out yet. */
  private unseenOf(page: FinishedJobEntry[], limit: number): Listed[] {
    const unseen: Listed[] = [];
    for (const { id, finishedOn } of page) {
      if (unseen.length >= limit) break;
      const key = `${id}@${finishedOn}`;
      if (!this.seen.has(key)) unseen.push({ id, key, finishedOn });
    }
    return unseen;
  }

  private key(): string {
    return this.queue.toKey(this.state);
  }
}
