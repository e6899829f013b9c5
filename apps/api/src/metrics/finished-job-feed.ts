import type { Job, Queue } from 'bullmq';

/**
 * Hands out each finished job of a queue once, newest first, by keeping a watermark on
 * `finishedOn`. Metrics are gathered from Redis at scrape time, so an API process counts the runs
 * of every worker process, including those that finished before it started (up to `backlog`).
 */
export class FinishedJobFeed {
  private watermark = 0;
  private readonly seenAtWatermark = new Set<string>();

  constructor(
    private readonly queue: Queue,
    private readonly state: 'completed' | 'failed',
    private readonly backlog = 1_000,
  ) {}

  /** Jobs that finished since the previous call. */
  async next(): Promise<Job[]> {
    const fresh: Job[] = [];
    const pageSize = 200;
    for (let start = 0; start < this.backlog; start += pageSize) {
      const page = await this.queue.getJobs([this.state], start, start + pageSize - 1, false);
      let reachedOld = false;
      for (const job of page) {
        if (!job?.id) continue;
        const finishedOn = job.finishedOn ?? 0;
        if (finishedOn < this.watermark || (finishedOn === this.watermark && this.seenAtWatermark.has(job.id))) {
          reachedOld = true;
          break;
        }
        fresh.push(job);
      }
      if (reachedOld || page.length < pageSize) break;
    }
    for (const job of fresh) {
      const finishedOn = job.finishedOn ?? 0;
      if (finishedOn > this.watermark) {
        this.watermark = finishedOn;
        this.seenAtWatermark.clear();
      }
      if (finishedOn === this.watermark && job.id) this.seenAtWatermark.add(job.id);
    }
    return fresh;
  }
}
