import type { AgentWorker } from '@agentq/agent-worker';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { keyNames, runStateKeys } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import {
  enqueueRaw,
  eventually,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
} from './helpers/worker-harness.js';

// The checkpoint, the tool-result journal and the step log of a run live and die together, whatever way the
// run ends: completed (TTL), failed for good (TTL), cancelled (deleted).
describe('run state lifecycle', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let queue: Queue;
  let worker: AgentWorker | undefined;

  /** Leaves the state an earlier attempt of `runId` would have left: a head, a journal, a step log and a step answer. */
  async function seedRunState(runId: string): Promise<string[]> {
    const keys = runStateKeys(keyNames(ctx.prefix), runId);
    const [checkpointKey, journalKey, messagesKey, stepsKey, stepAnswerKey] = keys;
    await ctx.redis.set(checkpointKey, '{"runId":"seeded"}');
    await ctx.redis.hset(journalKey, 'call-1', '{"ok":true,"output":"done"}');
    await ctx.redis.rpush(messagesKey, '{"role":"user","content":"hello"}');
    await ctx.redis.rpush(stepsKey, '{"step":0}');
    await ctx.redis.set(stepAnswerKey, '{"step":0}');
    return keys;
  }

  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, runAttempts: 2 });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await client.close();
    await stopWorkerSuite({ worker, queue, ctx });
  });

  it('deletes the checkpoint and the journal of a cancelled run', async () => {
    const { runId } = await client.enqueueRun({
      assistant: { model: 'scripted:test', script: [{ text: 'done' }] },
      input: { prompt: 'hello' },
    });
    const keys = await seedRunState(runId);
    expect(await ctx.redis.exists(...keys)).toBe(5);
    await client.cancelRun(runId);
    expect(await ctx.redis.exists(...keys)).toBe(0);
  });

  it('gives the checkpoint and the journal of a run that failed for good their TTL', async () => {
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    const keys = await seedRunState('doomed');
    expect(await ctx.redis.ttl(keys[0] as string)).toBe(-1);
    await enqueueRaw(queue, { runId: 'doomed', data: { assistant: { model: 'no colon' }, input: { prompt: 'x' } } });
    expect((await waitForJob(queue, 'doomed')).state).toBe('failed');
    const ttls = await eventually(async () => {
      const both = await Promise.all(keys.map((key) => ctx.redis.ttl(key)));
      return both.every((ttl) => ttl > 0) ? both : undefined;
    });
    // Days, not seconds: a failed run stays readable for a post-mortem, then goes.
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(24 * 3600);
  });
});
