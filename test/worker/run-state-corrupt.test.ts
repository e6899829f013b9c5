import { isParkedError, QUEUE_NAMES, runSpecSchema } from '@agentq/shared';
import { keyNames, recordDecision, runStateKeys } from '@agentq/store';
import { UnrecoverableError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { firstStartJob, useDirectProcessorOverCachedServer } from './helpers/direct-run-processor.js';

// A run parked on an approval whose stored state was damaged meanwhile fails once, as
// RUN_STATE_CORRUPT naming what is damaged, instead of retrying on an error no retry fixes.
describe('a resumed run whose stored state is damaged', () => {
  const suite = useDirectProcessorOverCachedServer();
  const executed = () => suite.calls.map((call) => call.toolCallId);
  const spec = runSpecSchema.parse({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['svc'],
      script: [{ toolCalls: [{ toolName: 'mcp__svc__act', input: {} }] }, { text: 'done' }],
    },
    input: { prompt: 'act' },
    approval: { requireFor: ['svc:act'] },
  });

  /** Runs `runId` until it parks on its approval, approves it, and returns the job as its next attempt. */
  async function parkedAndApproved(runId: string): Promise<Job> {
    const job = await firstStartJob(suite.direct.runs, { runId, spec });
    await suite.ctx.redis.set(`${job.queueQualifiedName}:${runId}:lock`, 'token', 'PX', 60_000);
    job.moveToWaitingChildren = async () => true;
    expect(isParkedError(await suite.direct.processor(job, 'token').catch((error: unknown) => error))).toBe(true);
    const [child] = await suite.direct.approvals.getJobs(['delayed', 'waiting']);
    const approvalId = String(child?.id);
    await recordDecision({
      redis: suite.ctx.redis,
      prefix: suite.ctx.prefix,
      input: { approvalId, approved: true, decidedBy: 'p' },
    });
    const value = { approvalId, approved: true, decidedBy: 'p', decidedAt: Date.now(), outcome: 'decision' };
    job.getChildrenValues = async <T>() =>
      ({ [`${suite.ctx.prefix}:${QUEUE_NAMES.approvals}:${approvalId}`]: value }) as Record<string, T>;
    job.moveToWaitingChildren = async () => false;
    Object.assign(job, { attemptsStarted: 2 });
    await suite.direct.approvals.remove(approvalId);
    return job;
  }

  /** The error the next attempt fails with. */
  async function failure(job: Job): Promise<Error> {
    const error = await suite.direct.processor(job, 'token').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }

  it.each([
    ['the head', 0, 'hash'],
    ['the journal', 1, 'string'],
    ['the messages', 2, 'string'],
    ['the steps', 3, 'hash'],
    ['the step answer', 4, 'list'],
  ] as const)('fails once when %s holds another type, naming its key', async (_what, index, type) => {
    const runId = `wrongtype-${index}`;
    const job = await parkedAndApproved(runId);
    const key = runStateKeys(keyNames(suite.ctx.prefix), runId)[index];
    await suite.ctx.redis.del(key);
    if (type === 'hash') await suite.ctx.redis.hset(key, 'a', 'b');
    else if (type === 'list') await suite.ctx.redis.rpush(key, 'a');
    else await suite.ctx.redis.set(key, 'a');

    const error = await failure(job);
    // Not retried: BullMQ fails the job at once.
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(error.message).toMatch(/^RUN_STATE_CORRUPT: /);
    expect(error.message).toContain(`key ${key} holds a ${type}`);
    expect(executed()).toEqual([]);
  });

  it('fails once on a stored message whose content is not what its role holds, naming the item', async () => {
    const runId = 'bad-message';
    const job = await parkedAndApproved(runId);
    const messagesKey = keyNames(suite.ctx.prefix).runMessages(runId);
    expect(await suite.ctx.redis.llen(messagesKey)).toBeGreaterThanOrEqual(2);
    await suite.ctx.redis.lset(messagesKey, 1, '{"role":"assistant","content":5}');

    const error = await failure(job);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(error.message).toMatch(/^RUN_STATE_CORRUPT: /);
    expect(error.message).toContain(`item 1 of ${messagesKey}`);
    expect(executed()).toEqual([]);
  });

  it('still resumes and finishes a run whose stored state is whole', async () => {
    const job = await parkedAndApproved('whole');
    await expect(suite.direct.processor(job, 'token')).resolves.toMatchObject({ text: 'done' });
    expect(executed()).toHaveLength(1);
  });
});
