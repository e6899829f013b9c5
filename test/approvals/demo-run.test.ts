import type { AgentWorker } from '@agentq/agent-worker';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { runResultSchema } from '@agentq/shared';
import { Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { everythingCommand, warmServer } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  eventually,
  runsQueue,
  startTestWorker,
  waitForJob,
  stopWorkerSuite,
} from '../worker/helpers/worker-harness.js';

describe('the scripted:demo model against server-everything', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    // The setup the demo expects: server-everything as `everything`, with `echo` always asking.
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'everything',
        name: 'Everything',
        transport: { type: 'stdio', command: everythingCommand, args: ['stdio'] },
        alwaysAsk: ['echo'],
      },
    });
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await stopWorkerSuite({ worker, queue, ctx });
  });

  it('finds and runs a deferred tool, parks on the always-ask tool, and answers once approved', async () => {
    await enqueueRun(queue, {
      runId: 'demo-1',
      spec: { assistant: { model: 'scripted:demo', mcpServers: ['everything'] }, input: { prompt: 'Show me agentq.' } },
    });
    const pending = await eventually(async () => {
      const [first] = await listPendingApprovals(ctx, { runId: 'demo-1' });
      const state = await (await Job.fromId(queue, 'demo-1'))?.getState();
      return first && state === 'waiting-children' ? first : undefined;
    });
    expect(pending.toolName).toBe('mcp__everything__echo');
    await decide(ctx, { approvalId: pending.approvalId, approved: true, decidedBy: 'demo-user' });
    const finished = await waitForJob(queue, 'demo-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls.map((call) => call.toolName)).toEqual([
      'tool_search',
      'tool_inspect',
      'tool_invoke',
      'mcp__everything__echo',
    ]);
    expect(result.tools?.deferred).toBeGreaterThan(0);
    expect(result.text).toContain('The sum of 2 and 3 is 5.');
    expect(result.text).toContain('Echo: Hello from the agentq demo');
  });
});
