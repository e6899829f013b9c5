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

describe('an approval settled before its run could park', () => {
  let ctx: TestContext;
  let direct: DirectRunProcessor | undefined;

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
    await direct?.close();
    await ctx?.close();
  });

  it('continues from its checkpoint in the same attempt, once, without asking again', async () => {
    const calls: string[] = [];
    const caller: McpToolCaller = {
      callTool: async (request) => {
        calls.push(String(request.toolCallId));
        return { content: [{ type: 'text', text: 'acted' }] };
      },
    };
    direct = createDirectRunProcessor({ ctx, caller });
    const { processor, approvals } = direct;
    const spec = runSpecSchema.parse({
      assistant: {
        model: 'scripted:test',
        mcpServers: ['svc'],
        script: [{ toolCalls: [{ toolName: 'mcp__svc__act', input: {} }] }, { text: 'done' }],
      },
      input: { prompt: 'act' },
      approval: { requireFor: ['svc:act'] },
    });
    // A real parent job (children need one), driven by hand: its first start, and an approval
    // job that finishes between the child add and moveToWaitingChildren.
    const job = await firstStartJob(direct.runs, { runId: 'race-1', spec });
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
});
