import { createModelResolver, createRunProcessor, RunStore } from '@agentq/agent-worker';
import { createCatalogReader, ToolRegistry, type McpToolCaller } from '@agentq/registry';
import {
  defaultRunJobOptions,
  QUEUE_NAMES,
  recordDecision,
  runResultSchema,
  runSpecSchema,
  silentLogger,
} from '@agentq/shared';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, writeCatalogEntry } from '../worker/helpers/catalog.js';

describe('an approval settled before its run could park', () => {
  let ctx: TestContext;
  let runs: Queue;
  let approvals: Queue;

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
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    for (const each of [runs, approvals]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
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
    const logger = silentLogger();
    const processor = createRunProcessor({
      store: new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger }),
      redis: ctx.redis,
      prefix: ctx.prefix,
      registry: new ToolRegistry({ logger }),
      reader: createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, logger }),
      caller,
      models: createModelResolver({ config: {} as never }),
      approvalsQueue: approvals,
      config: { approvalTimeoutMs: 60_000 },
      logger,
      env: {},
    });
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
    await runs.add('run', spec, { ...defaultRunJobOptions({ attempts: 1 }), jobId: 'race-1' });
    const job = (await Job.fromId(runs, 'race-1')) as Job;
    Object.assign(job, { attemptsStarted: 1, attemptsMade: 0, stalledCounter: 0 });
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
    job.updateProgress = async () => undefined;

    // The attempt holds the run's lock, as a BullMQ worker would.
    await ctx.redis.set(`${job.queueQualifiedName}:race-1:lock`, 'token', 'PX', 60_000);
    const result = runResultSchema.parse(await processor(job, 'token'));
    expect(result.text).toBe('done');
    expect(result.toolCalls[0]?.approval?.approved).toBe(true);
    expect(calls).toHaveLength(1);
    expect(parks).toBe(1);
  });
});
