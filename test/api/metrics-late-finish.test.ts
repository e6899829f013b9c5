import { QUEUE_NAMES, silentLogger } from '@agentq/shared';
import { Queue, Worker, type Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiMetrics } from '../../apps/api/src/metrics/create-api-metrics.js';
import { FinishedJobFeed } from '../../apps/api/src/metrics/finished-job-feed.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe('metrics counters of finished jobs', () => {
  let ctx: TestContext;
  let queue: Queue;
  let worker: Worker;
  beforeAll(() => {
    ctx = createTestContext();
    queue = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    worker = new Worker(QUEUE_NAMES.agentRuns, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    await ctx.close();
  });

  it('agentq_runs_total counts a run whose finishedOn lands below one already counted, and none twice', async () => {
    const metrics = createApiMetrics({
      redis: ctx.redis,
      prefix: ctx.prefix,
      queues: { [QUEUE_NAMES.agentRuns]: queue },
      logger: silentLogger(),
    });
    await queue.add('run', {});
    await queue.add('run', {});
    const x = (await worker.getNextJob('tx')) as Job;
    const y = (await worker.getNextJob('ty')) as Job;
    const realNow = Date.now();
    // Worker A stamps X at T-5 ms (its Date.now() before the write, or a clock 5 ms behind); worker
    // B's Y, stamped at T, reaches Redis first; a scrape comes between the two writes.
    vi.spyOn(Date, 'now').mockReturnValue(realNow);
    await y.moveToCompleted({}, 'ty', false);
    const first = await metrics.render();
    expect(first).toMatch(/agentq_runs_total\{outcome="completed"\} 1/);
    vi.spyOn(Date, 'now').mockReturnValue(realNow - 5);
    await x.moveToCompleted({}, 'tx', false);
    vi.restoreAllMocks();
    const second = await metrics.render();
    expect(second).toMatch(/agentq_runs_total\{outcome="completed"\} 2/);
    // Read again with nothing new: the same two.
    expect(await metrics.render()).toMatch(/agentq_runs_total\{outcome="completed"\} 2/);
  });

  it('hands out every job once when more finished between two reads than one read takes', async () => {
    const failedQueue = new Queue('feed-backlog', { connection: ctx.redis, prefix: ctx.prefix });
    const failing = new Worker('feed-backlog', undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
    try {
      const finish = async (count: number): Promise<string[]> => {
        await failedQueue.addBulk(Array.from({ length: count }, () => ({ name: 'job', data: {} })));
        const ids: string[] = [];
        for (let index = 0; index < count; index += 1) {
          const job = (await failing.getNextJob('t')) as Job;
          await job.moveToFailed(new Error('boom'), 't', false);
          ids.push(String(job.id));
        }
        return ids;
      };
      // Two jobs a read, walked two ids a page: a backlog of seven takes four reads, oldest first.
      const feed = new FinishedJobFeed(ctx.redis, failedQueue, 'failed', { startBacklog: 2, perCall: 2, pageSize: 2 });
      const before = await finish(3);
      const first = (await feed.next()).map((job) => String(job.id));
      expect(first.sort()).toEqual(before.slice(1).sort());
      const later = await finish(7);
      const handedOut = [...first];
      for (let read = 0; read < 6; read += 1) {
        const jobs = await feed.next();
        expect(jobs.length).toBeLessThanOrEqual(2);
        handedOut.push(...jobs.map((job) => String(job.id)));
      }
      // Every job once: the one beyond the first read's backlog too, as it finished within the
      // look-back of those it took (it cannot be told from one whose write landed late).
      expect(handedOut.sort()).toEqual([...before, ...later].sort());
    } finally {
      await failing.close();
      await failedQueue.obliterate({ force: true }).catch(() => undefined);
      await failedQueue.close();
    }
  });
});
