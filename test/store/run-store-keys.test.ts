import { QUEUE_NAMES, runCheckpointSchema, silentLogger } from '@agentq/shared';
import { keyNames, RunStore } from '@agentq/store';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe("RunStore and BullMQ's own keys", () => {
  let ctx: TestContext;
  let queue: Queue;

  beforeAll(() => {
    ctx = createTestContext();
    queue = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
  });

  it('fences with the very lock BullMQ holds for an active run, and names its job hash, queue meta and events', async () => {
    const store = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    const keys = keyNames(ctx.prefix);
    const progress = { step: 1, lastTool: null, status: 'running' };
    const seen: { lock: string | null; token: string | undefined; job: number; meta: number }[] = [];
    const connection = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
    let worker: Worker | undefined;
    try {
      const processed = new Promise<void>((resolve, reject) => {
        worker = new Worker(
          QUEUE_NAMES.agentRuns,
          async (job, token) => {
            const fence = store.fenceFor(job.id as string, token as string);
            seen.push({
              lock: await ctx.redis.get(fence.lockKey),
              token,
              job: await ctx.redis.exists(keys.queueJob(QUEUE_NAMES.agentRuns, job.id as string)),
              meta: await ctx.redis.exists(keys.queueMeta(QUEUE_NAMES.agentRuns)),
            });
            // A fenced write goes through while this attempt holds the lock, its progress with it.
            await store.write(
              runCheckpointSchema.parse({
                runId: job.id,
                messages: [{ role: 'user', content: 'hi' }],
                allowedNames: [],
                inspectedNames: [],
                step: 1,
                usage: {},
                catalogVersion: {},
                updatedAt: 1,
              }),
              { fence, progress },
            );
          },
          { connection, prefix: ctx.prefix, autorun: true },
        );
        worker.on('completed', () => resolve());
        worker.on('failed', (_job, error) => reject(error));
      });
      await queue.add('run', {}, { jobId: 'keys-run' });
      await processed;
    } finally {
      await worker?.close();
      connection.disconnect();
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]?.token).toEqual(expect.any(String));
    expect(seen[0]?.lock).toBe(seen[0]?.token);
    expect(seen[0]).toMatchObject({ job: 1, meta: 1 });
    expect((await store.read('keys-run'))?.step).toBe(1);
    expect(keys.queueEvents(QUEUE_NAMES.agentRuns)).toBe(queue.keys.events);
    expect((await queue.getJob('keys-run'))?.progress).toEqual(progress);
  });
});
