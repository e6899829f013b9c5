import type { McpToolCaller } from '@agentq/registry';
import { isParkedError, QUEUE_NAMES, runSpecSchema } from '@agentq/shared';
import { keyNames, recordDecision, runStateKeys } from '@agentq/store';
import { UnrecoverableError, type Job } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, writeCatalogEntry } from './helpers/catalog.js';
import { createDirectRunProcessor, firstStartJob, type DirectRunProcessor } from './helpers/direct-run-processor.js';

// A run parked on an approval whose stored state was damaged meanwhile fails once, as
// RUN_STATE_CORRUPT naming what is damaged, instead of retrying on an error no retry fixes.
describe('a resumed run whose stored state is damaged', () => {
  let ctx: TestContext;
  let direct: DirectRunProcessor;
  const executed: string[] = [];
  const caller: McpToolCaller = {
    callTool: async (request) => {
      executed.push(String(request.toolCallId));
      return { content: [{ type: 'text', text: 'acted' }] };
    },
  };
  const spec = runSpecSchema.parse({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['svc'],
      script: [{ toolCalls: [{ toolName: 'mcp__svc__act', input: {} }] }, { text: 'done' }],
    },
    input: { prompt: 'act' },
    approval: { requireFor: ['svc:act'] },
  });

  beforeAll(async () => {
    ctx = createTestContext();
    const transport = { type: 'stdio' as const, command: '/nonexistent/never-started' };
    const definition = await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'svc', transport } });
    await writeCatalogEntry({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition,
      tools: [{ name: 'act', description: 'Acts.', inputSchema: { type: 'object' } }],
    });
    direct = createDirectRunProcessor({ ctx, caller });
  });

  afterAll(async () => {
    await direct?.close();
    await ctx?.close();
  });

  /** Runs `runId` until it parks on its approval, approves it, and returns the job as its next attempt. */
  async function parkedAndApproved(runId: string): Promise<Job> {
    const job = await firstStartJob(direct.runs, { runId, spec });
    await ctx.redis.set(`${job.queueQualifiedName}:${runId}:lock`, 'token', 'PX', 60_000);
    job.moveToWaitingChildren = async () => true;
    expect(isParkedError(await direct.processor(job, 'token').catch((error: unknown) => error))).toBe(true);
    const [child] = await direct.approvals.getJobs(['delayed', 'waiting']);
    const approvalId = String(child?.id);
    await recordDecision({
      redis: ctx.redis,
      prefix: ctx.prefix,
      input: { approvalId, approved: true, decidedBy: 'p' },
    });
    const value = { approvalId, approved: true, decidedBy: 'p', decidedAt: Date.now(), outcome: 'decision' };
    job.getChildrenValues = async <T>() =>
      ({ [`${ctx.prefix}:${QUEUE_NAMES.approvals}:${approvalId}`]: value }) as Record<string, T>;
    job.moveToWaitingChildren = async () => false;
    Object.assign(job, { attemptsStarted: 2 });
    await direct.approvals.remove(approvalId);
    return job;
  }

  /** The error the next attempt fails with. */
  async function failure(job: Job): Promise<Error> {
    const error = await direct.processor(job, 'token').catch((caught: unknown) => caught);
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
    const key = runStateKeys(keyNames(ctx.prefix), runId)[index];
    await ctx.redis.del(key);
    if (type === 'hash') await ctx.redis.hset(key, 'a', 'b');
    else if (type === 'list') await ctx.redis.rpush(key, 'a');
    else await ctx.redis.set(key, 'a');

    const error = await failure(job);
    // Not retried: BullMQ fails the job at once.
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(error.message).toMatch(/^RUN_STATE_CORRUPT: /);
    expect(error.message).toContain(`key ${key} holds a ${type}`);
    expect(executed).toEqual([]);
  });

  it('fails once on a stored message whose content is not what its role holds, naming the item', async () => {
    const runId = 'bad-message';
    const job = await parkedAndApproved(runId);
    const messagesKey = keyNames(ctx.prefix).runMessages(runId);
    expect(await ctx.redis.llen(messagesKey)).toBeGreaterThanOrEqual(2);
    await ctx.redis.lset(messagesKey, 1, '{"role":"assistant","content":5}');

    const error = await failure(job);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect(error.message).toMatch(/^RUN_STATE_CORRUPT: /);
    expect(error.message).toContain(`item 1 of ${messagesKey}`);
    expect(executed).toEqual([]);
  });

  it('still resumes and finishes a run whose stored state is whole', async () => {
    const job = await parkedAndApproved('whole');
    await expect(direct.processor(job, 'token')).resolves.toMatchObject({ text: 'done' });
    expect(executed).toHaveLength(1);
  });
});
