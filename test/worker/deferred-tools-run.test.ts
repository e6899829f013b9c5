import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema, type RunCheckpoint } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { everythingCommand, warmServer } from './helpers/catalog.js';
import {
  enqueueRun,
  readCheckpoint,
  runsQueue,
  startTestWorker,
  waitForJob,
  stopWorkerSuite,
} from './helpers/worker-harness.js';

describe('a scripted run on deferred tools of the real server-everything', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'everything', transport: { type: 'stdio', command: everythingCommand, args: ['stdio'] } },
    });
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await stopWorkerSuite({ worker, queue, ctx });
  });

  it('searches, inspects and invokes a deferred tool, with its real output in the messages', async () => {
    await enqueueRun(queue, {
      runId: 'deferred-1',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['everything'],
          // Small window: every tool of server-everything is deferred behind the meta tools.
          contextWindow: 2_000,
          script: [
            { toolCalls: [{ toolName: 'tool_search', input: { query: 'sum of two numbers' } }] },
            { toolCalls: [{ toolName: 'tool_inspect', input: { name: 'mcp__everything__getSum' } }] },
            {
              toolCalls: [
                { toolName: 'tool_invoke', input: { name: 'mcp__everything__getSum', params: { a: 19, b: 23 } } },
              ],
            },
            { text: 'The answer is 42.' },
          ],
        },
        input: { prompt: 'What is 19 + 23?' },
      },
    });
    const finished = await waitForJob(queue, 'deferred-1');
    expect(finished.failedReason).toBeUndefined();
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('The answer is 42.');
    expect(result.tools?.deferred).toBeGreaterThan(5);
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(['tool_search', 'tool_inspect', 'tool_invoke']);
    expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('mcp__everything__getSum');
    const invoke = result.toolCalls[2];
    expect(invoke?.isError).toBe(false);
    expect(JSON.stringify(invoke?.output)).toContain('42');
    expect(result.catalogVersion.everything).toBeTruthy();

    const checkpoint = (await readCheckpoint(ctx, 'deferred-1')) as RunCheckpoint;
    expect(checkpoint.status).toBe('completed');
    expect(checkpoint.step).toBe(4);
    expect(checkpoint.inspectedNames).toContain('mcp__everything__getSum');
    expect(JSON.stringify(checkpoint.messages)).toContain('42');
    expect(checkpoint.executedToolCallIds).toHaveLength(3);
  });
});
