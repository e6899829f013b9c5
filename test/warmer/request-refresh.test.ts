import { QUEUE_NAMES } from '@agentq/shared';
import { requestRefresh } from '@agentq/store';
import { Queue, Worker, type Job } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { eventually } from '../helpers/eventually.js';

// The dedupe promise of `requestRefresh` rests on BullMQ's `keepLastIfActive`; pin it on a real
// Redis so that a BullMQ upgrade that changes it fails here.
let ctx: TestContext;
let queue: Queue;
let worker: Worker | undefined;

beforeEach(() => {
  ctx = createTestContext();
  queue = new Queue(QUEUE_NAMES.catalogRefresh, { connection: ctx.redis.duplicate(), prefix: ctx.prefix });
});
afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await queue.obliterate({ force: true });
  await queue.close();
  await ctx.close();
});

describe('requestRefresh on a real queue', () => {
  it('collapses a burst for a waiting server into one job', async () => {
    for (let index = 0; index < 20; index += 1) {
      await requestRefresh(queue, { serverId: 'docs', reason: 'list-changed' });
    }
    expect(await queue.getJobCounts('waiting', 'delayed', 'active')).toEqual({ waiting: 1, delayed: 0, active: 0 });
  });

  it('keeps one more refresh when requests arrive while one runs, and never runs two at once', async () => {
    let running = 0;
    let maxRunning = 0;
    const started: string[] = [];
    let release: (() => void) | undefined;
    worker = new Worker(
      QUEUE_NAMES.catalogRefresh,
      async (job: Job) => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        started.push(job.id ?? '');
        if (started.length === 1) await new Promise<void>((resolve) => (release = resolve));
        running -= 1;
      },
      { connection: ctx.redis.duplicate({ maxRetriesPerRequest: null }), prefix: ctx.prefix, concurrency: 4 },
    );
    await requestRefresh(queue, { serverId: 'docs', reason: 'list-changed' });
    await eventually(() => release !== undefined, 'the first job to start');
    for (let index = 0; index < 10; index += 1) {
      await requestRefresh(queue, { serverId: 'docs', reason: 'list-changed' });
    }
    expect(await queue.getJobCounts('waiting', 'active')).toEqual({ waiting: 0, active: 1 });
    release?.();
    await eventually(
      async () => started.length === 2 && (await queue.getJobCounts('completed')).completed === 2,
      'both jobs to complete',
    );
    // Give a stray third job a chance to show up before asserting there is none.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).toHaveLength(2);
    expect(maxRunning).toBe(1);
  });

  it('leaves exactly one first-seen refresh in flight however many arrive while it runs', async () => {
    const started: string[] = [];
    let release: (() => void) | undefined;
    worker = new Worker(
      QUEUE_NAMES.catalogRefresh,
      async (job: Job) => {
        started.push(job.id ?? '');
        if (started.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      { connection: ctx.redis.duplicate({ maxRetriesPerRequest: null }), prefix: ctx.prefix, concurrency: 4 },
    );
    await requestRefresh(queue, { serverId: 'docs', reason: 'first-seen' });
    await eventually(() => release !== undefined, 'the first job to start');
    await Promise.all(
      Array.from({ length: 20 }, () => requestRefresh(queue, { serverId: 'docs', reason: 'first-seen' })),
    );
    expect(await queue.getJobCounts('waiting', 'active')).toEqual({ waiting: 0, active: 1 });
    release?.();
    await eventually(async () => (await queue.getJobCounts('completed')).completed === 1, 'the job to complete');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(started).toHaveLength(1);
  });

  it('keeps forced and background requests apart, so an explicit refresh is never swallowed', async () => {
    await requestRefresh(queue, { serverId: 'docs', reason: 'prewarm' });
    await requestRefresh(queue, { serverId: 'docs', reason: 'on-demand' });
    await requestRefresh(queue, { serverId: 'docs', reason: 'first-seen' });
    const waiting = await queue.getWaiting();
    expect(waiting.map((job) => job.data.reason as string).sort()).toEqual(['on-demand', 'prewarm']);
  });
});
