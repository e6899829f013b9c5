import type { McpToolCaller } from '@agentq/registry';
import {
  digestOf,
  isParkedError,
  QUEUE_NAMES,
  runResultSchema,
  runSpecSchema,
  type CatalogTool,
  type RunCheckpoint,
  type ServerDefinition,
} from '@agentq/shared';
import { CatalogStore, keyNames, recordDecision, type CheckpointWrite } from '@agentq/store';
import type { LanguageModelV3CallOptions, LanguageModelV3Content } from '@ai-sdk/provider';
import type { Job } from 'bullmq';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, writeCatalogEntry } from './helpers/catalog.js';
import { createDirectRunProcessor, firstStartJob, type DirectRunProcessor } from './helpers/direct-run-processor.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const act: CatalogTool = {
  name: 'act',
  description: 'Acts.',
  inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
};
const look: CatalogTool = {
  name: 'look',
  description: 'Looks.',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
};

/** A model that plays `turns` in order and remembers the tools each call was shown. */
function recordingModel(turns: LanguageModelV3Content[][]) {
  const calls: LanguageModelV3CallOptions[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const content = turns[calls.length] ?? [{ type: 'text', text: 'done' }];
      calls.push(options);
      const called = content.some((part) => part.type === 'tool-call');
      return {
        content,
        finishReason: { unified: called ? 'tool-calls' : 'stop', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  return { calls, models: { resolve: () => ({ model, modelId: 'openai:mock-model', contextWindow: 200_000 }) } };
}

const toolCall = (toolCallId: string, toolName: string, input: unknown): LanguageModelV3Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});

/** The tools a model call was shown: name → description and input schema. */
const shownTools = (call: LanguageModelV3CallOptions | undefined) =>
  Object.fromEntries(
    (call?.tools ?? []).map((each) => [
      each.name,
      each.type === 'function' ? { description: each.description, inputSchema: each.inputSchema } : each,
    ]),
  );

describe('a run pinned to the catalog it was shown', () => {
  let ctx: TestContext;
  let definition: ServerDefinition;
  let direct: DirectRunProcessor | undefined;
  const executed: string[] = [];
  const caller: McpToolCaller = {
    callTool: async (request) => {
      executed.push(request.toolName);
      return { content: [{ type: 'text', text: `${request.toolName} done` }] };
    },
  };

  beforeAll(async () => {
    ctx = createTestContext();
    const transport = { type: 'stdio' as const, command: '/nonexistent/never-started' };
    definition = await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'svc', transport } });
  });

  afterAll(async () => {
    await direct?.close();
    await ctx?.close();
  });

  it('shows a parked run the same tools after the catalog changed, and refuses a changed tool', async () => {
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition, tools: [act, look] });
    const pinnedVersion = digestOf([act, look]);
    const { calls, models } = recordingModel([
      [toolCall('c-act', 'mcp__svc__act', { note: 'x' })],
      [toolCall('c-look', 'mcp__svc__look', { q: 'y' })],
    ]);
    await direct?.close();
    direct = createDirectRunProcessor({ ctx, caller, models, pinned: true });
    const spec = runSpecSchema.parse({
      assistant: { model: 'openai:mock-model', mcpServers: ['svc'], maxSteps: 5 },
      input: { prompt: 'act, then look' },
      approval: { requireFor: ['svc:act'] },
    });
    const job = await firstStartJob(direct.runs, { runId: 'pinned-1', spec });
    await ctx.redis.set(`${job.queueQualifiedName}:pinned-1:lock`, 'token', 'PX', 60_000);
    // The first attempt asks for the approval and parks.
    job.moveToWaitingChildren = async () => true;
    expect(isParkedError(await direct.processor(job, 'token').catch((error: unknown) => error))).toBe(true);

    // Meanwhile the server changes: `look` takes another input, and a new tool appears.
    const changedLook = { ...look, inputSchema: { type: 'object' as const, properties: { q: { type: 'number' } } } };
    const extra = { name: 'extra', description: 'New.', inputSchema: { type: 'object' as const } };
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition, tools: [act, changedLook, extra] });

    await approve(job);
    const result = runResultSchema.parse(await direct.processor(job, 'token'));

    expect(calls).toHaveLength(3);
    // The resumed run's model calls see exactly the tools the first call saw.
    expect(Object.keys(shownTools(calls[0])).sort()).toEqual(['mcp__svc__act', 'mcp__svc__look']);
    expect(shownTools(calls[1])).toEqual(shownTools(calls[0]));
    expect(shownTools(calls[2])).toEqual(shownTools(calls[0]));
    // The approved call went through (its tool did not change); the changed one failed closed.
    expect(executed).toEqual(['act']);
    const lookCall = result.toolCalls.find((call) => call.toolCallId === 'c-look');
    expect(lookCall?.isError).toBe(true);
    expect(String(lookCall?.output)).toContain('changed its input schema since this run was shown it');
    expect(result.text).toBe('done');
    for (const step of result.steps) expect(step.catalogVersion).toEqual({ svc: pinnedVersion });

    // An auditor reads the pinned version's definitions.
    const catalog = new CatalogStore({ redis: ctx.redis, prefix: ctx.prefix });
    expect((await catalog.readSnapshot('svc', pinnedVersion))?.tools).toEqual([act, look]);
    expect(await ctx.redis.ttl(keyNames(ctx.prefix).catalogSnapshot('svc', pinnedVersion))).toBeGreaterThan(7 * 86_400);
  });

  /** Records an approval of the run's pending call and hands it over as the job's child value. */
  async function approve(job: Job): Promise<void> {
    const [child] = await (direct as DirectRunProcessor).approvals.getJobs(['delayed', 'waiting']);
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
  }

  it('writes about the same bytes at step 20 as at step 2', async () => {
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition, tools: [act, look] });
    await direct?.close();
    direct = createDirectRunProcessor({ ctx, caller, pinned: true });
    const writes: CheckpointWrite[] = [];
    const checkpoints: RunCheckpoint[] = [];
    const write = direct.store.write.bind(direct.store);
    direct.store.write = async (checkpoint, options) => {
      checkpoints.push(checkpoint);
      const done = await write(checkpoint, options);
      writes.push(done);
      return done;
    };
    const script = [
      ...Array.from({ length: 20 }, () => ({ toolCalls: [{ toolName: 'mcp__svc__look', input: { q: 'same' } }] })),
      { text: 'done' },
    ];
    const spec = runSpecSchema.parse({
      assistant: { model: 'scripted:test', mcpServers: ['svc'], maxSteps: 25, script },
      input: { prompt: 'look twenty times' },
    });
    const job = await firstStartJob(direct.runs, { runId: 'flat-1', spec });
    const result = runResultSchema.parse(await direct.processor(job));
    expect(result.steps).toHaveLength(21);
    expect(writes).toHaveLength(21);
    const [second, twentieth] = [writes[1] as CheckpointWrite, writes[19] as CheckpointWrite];
    expect(twentieth).toMatchObject({ messages: 2, steps: 1 });
    expect(twentieth.bytes).toBeLessThan(second.bytes * 1.1);
    // What a whole-checkpoint write would have sent at step 20: many times more.
    expect(JSON.stringify(checkpoints[19]).length).toBeGreaterThan(5 * twentieth.bytes);
    // And the run reads back whole.
    expect((await direct.store.read('flat-1'))?.messages).toHaveLength(1 + 20 * 2 + 1);
  });

  it('resumes a single-blob checkpoint written before the step log', async () => {
    await direct?.close();
    direct = createDirectRunProcessor({ ctx, caller });
    const executedBefore = executed.length;
    const spec = runSpecSchema.parse({
      assistant: {
        model: 'scripted:test',
        mcpServers: ['svc'],
        script: [{ toolCalls: [{ toolName: 'mcp__svc__look', input: { q: 'a' } }] }, { text: 'done after upgrade' }],
      },
      input: { prompt: 'look' },
    });
    const job = await firstStartJob(direct.runs, { runId: 'upgraded-1', spec });
    Object.assign(job, { attemptsStarted: 2 });
    // The checkpoint as a worker from before the step log left it after step 0 (no incarnation).
    const usage0 = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const output = { type: 'text', value: 'look done' };
    const legacy = {
      runId: 'upgraded-1',
      messages: [
        { role: 'user', content: 'look' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'old-1', toolName: 'mcp__svc__look', input: {} }],
        },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'old-1', toolName: 'mcp__svc__look', output }] },
      ],
      allowedNames: [],
      wireNames: { mcp__svc__look: 'svc:look' },
      inspectedNames: [],
      step: 1,
      steps: [{ step: 0, text: '', finishReason: 'tool-calls', toolCalls: ['old-1'], usage: usage0 }],
      toolCalls: [],
      usage: usage0,
      catalogVersion: { svc: 'old' },
      pendingApprovals: [],
      executedToolCallIds: ['old-1'],
      status: 'running',
      warnings: [],
      updatedAt: 1,
    };
    await ctx.redis.set(keyNames(ctx.prefix).run('upgraded-1'), JSON.stringify(legacy));
    const result = runResultSchema.parse(await direct.processor(job));
    expect(result.text).toBe('done after upgrade');
    expect(result.steps.map((step) => step.step)).toEqual([0, 1]);
    expect(result.toolCalls.map((call) => call.toolCallId)).toEqual(['old-1']);
    // The call journalled before the upgrade is not made again.
    expect(executed).toHaveLength(executedBefore);
    const head = JSON.parse((await ctx.redis.get(keyNames(ctx.prefix).run('upgraded-1'))) as string);
    expect(head).toMatchObject({ format: 'step-log', messageCount: 4, stepCount: 2, status: 'completed' });
  });
});
