import { QUEUE_NAMES, silentLogger } from '@agentq/shared';
import { Queue, Worker, type Job } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiMetrics } from '../../apps/api/src/metrics/create-api-metrics.js';
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
});
