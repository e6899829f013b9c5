import type { AgentWorker } from '@agentq/agent-worker';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startTestWorker } from './helpers/worker-harness.js';

describe('a job on the approvals queue whose record is missing', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let approvals: Queue;
  let events: QueueEvents;
  beforeAll(async () => {
    ctx = createTestContext();
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
    events = new QueueEvents(QUEUE_NAMES.approvals, { connection: ctx.redis.duplicate(), prefix: ctx.prefix });
    await events.waitUntilReady();
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
  });
  afterAll(async () => {
    await worker?.close();
    await events?.close();
    await approvals?.obliterate({ force: true }).catch(() => undefined);
    await approvals?.close();
    await ctx?.close();
  });

  it('an elicitation that does not exist fails once, with its code, and is not retried', async () => {
    const job = await approvals.add('elicitation', { elicitationId: 'elic-none' }, { attempts: 5, backoff: 10 });
    await expect(job.waitUntilFinished(events, 60_000)).rejects.toThrow(/NOT_FOUND/);
    const failed = await approvals.getJob(job.id as string);
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toMatch(/^NOT_FOUND: .*elic-none/);
  });
});
