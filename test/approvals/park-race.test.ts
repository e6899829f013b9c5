import type { McpToolCaller } from '@agentq/registry';
import { QUEUE_NAMES, runResultSchema, runSpecSchema } from '@agentq/shared';
import { recordDecision } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, writeCatalogEntry } from '../worker/helpers/catalog.js';
import {
  createDirectRunProcessor,
  firstStartJob,
  type DirectRunProcessor,
} from '../worker/helpers/direct-run-processor.js';

describe('a run parking on its approvals', () => {
  let ctx: TestContext;
  const started: DirectRunProcessor[] = [];
  const spec = runSpecSchema.parse({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['svc'],
      script: [{ toolCalls: [{ toolName: 'mcp__svc__act', input: {} }] }, { text: 'done' }],
    },
    input: { prompt: 'act' },
    approval: { requireFor: ['svc:act'] },
  });

  /** A direct run processor whose caller records each call's id and answers `acted`. */
  function startProcessor() {
    const calls: string[] = [];
    const caller: McpToolCaller = {
      callTool: async (request) => {
        calls.push(String(request.toolCallId));
        return { content: [{ type: 'text', text: 'acted' }] };
      },
    };
    const direct = createDirectRunProcessor({ ctx, caller });
    started.push(direct);
    return { processor: direct.processor, approvals: direct.approvals, runs: direct.runs, calls };
  }

  beforeAll(async () => {
    ctx = createTestContext();
    const definition = await putServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'svc', transport: { type: 'stdio', command: '/nonexistent/never-started' } },
    });
    await writeCatalogEntry({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition,
      tools: [{ name: 'act', description: 'Acts.', inputSchema: { type: 'object', properties: {} } }],
    });
  });

  afterAll(async () => {
    for (const direct of started) await direct.close();
    await ctx?.close();
  });

  it('continues from its checkpoint in the same attempt, once, without asking again, when an approval settled before it could park', async () => {
    const { processor, approvals, runs, calls } = startProcessor();
    // A real parent job (children need one), driven by hand: its first start, and an approval
    // job that finishes between the child add and moveToWaitingChildren.
    const job = await firstStartJob(runs, { runId: 'race-1', spec });
    let childrenValues: Record<string, unknown> = {};
    let parks = 0;
    job.getChildrenValues = async <T>() => childrenValues as Record<string, T>;
    job.moveToWaitingChildren = async () => {
      parks += 1;
      const [child] = await approvals.getJobs(['delayed', 'waiting']);
      // Decided, as a person would, and its job done, before the run could park.
      await recordDecision({
        redis: ctx.redis,
        prefix: ctx.prefix,
        input: { approvalId: String(child?.id), approved: true, decidedBy: 'quick' },
      });
      childrenValues = {
        [`${ctx.prefix}:${QUEUE_NAMES.approvals}:${child?.id}`]: {
          approvalId: child?.id,
          approved: true,
          decidedBy: 'quick',
          decidedAt: Date.now(),
          outcome: 'decision',
        },
      };
      return false;
    };

    // The attempt holds the run's lock, as a BullMQ worker would.
    await ctx.redis.set(`${job.queueQualifiedName}:race-1:lock`, 'token', 'PX', 60_000);
    const result = runResultSchema.parse(await processor(job, 'token'));
    expect(result.text).toBe('done');
    expect(result.toolCalls[0]?.approval?.approved).toBe(true);
    expect(calls).toHaveLength(1);
    expect(parks).toBe(1);
  });

  it('counts an approval job that failed while it was parked as a denial, and does not park on it again', async () => {
    const { processor, approvals, runs, calls } = startProcessor();
    // A real parent job driven by hand. Parking answers as BullMQ does: parked while the run's
    // dependency set holds a child.
    const job = await firstStartJob(runs, { runId: 'failed-approval-1', spec });
    const dependenciesKey = `${job.queueQualifiedName}:failed-approval-1:dependencies`;
    let parks = 0;
    job.getChildrenValues = async <T>() => ({}) as Record<string, T>;
    job.moveToWaitingChildren = async () => {
      parks += 1;
      return (await ctx.redis.scard(dependenciesKey)) > 0;
    };
    await ctx.redis.set(`${job.queueQualifiedName}:failed-approval-1:lock`, 'token', 'PX', 60_000);
    await expect(processor(job, 'token')).rejects.toThrow();
    expect(parks).toBe(1);

    // The approval job fails for good (say, stalled past the limit on killed workers): BullMQ
    // takes it out of the run's dependencies, records the failure as ignored and releases the run.
    const [child] = await approvals.getJobs(['delayed', 'waiting']);
    const childKey = `${ctx.prefix}:${QUEUE_NAMES.approvals}:${child?.id}`;
    expect(await ctx.redis.srem(dependenciesKey, childKey)).toBe(1);
    job.getIgnoredChildrenFailures = async () => ({ [childKey]: 'job stalled more than allowable limit' });

    // The released run runs again: it must not add the failed job back and wait on it.
    const result = runResultSchema.parse(await processor(job, 'token'));
    expect(result.text).toBe('done');
    expect(result.toolCalls[0]?.approval?.approved).toBe(false);
    expect(calls).toHaveLength(0);
    expect(await ctx.redis.scard(dependenciesKey)).toBe(0);
  });
});
