import type { AgentWorker } from '@agentq/agent-worker';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from './helpers/catalog.js';
import { runsQueue, startTestWorker, stopWorkerSuite, waitForJob } from './helpers/worker-harness.js';

describe('a server removed after its run was enqueued', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let worker: AgentWorker | undefined;
  let queue: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    for (const id of ['kept', 'gone', 'off']) {
      await warmServer({
        redis: ctx.redis,
        prefix: ctx.prefix,
        definition: { id, transport: fixtureStdioTransport() },
      });
    }
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await client?.close();
    await stopWorkerSuite({ worker, queue, ctx });
  });

  it("puts a warning in the run's result for each named server that went away", async () => {
    const { runId } = await client.enqueueRun({
      assistant: { model: 'scripted:test', mcpServers: ['kept', 'gone', 'off'], script: [{ text: 'done' }] },
      input: { prompt: 'hello' },
    });
    await client.removeServer('gone');
    await client.setServerEnabled('off', false);
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    const finished = await waitForJob(queue, runId, 60_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.warnings?.map(({ code, serverId, reason }) => ({ code, serverId, reason }))).toEqual([
      { code: 'MCP_SERVER_UNAVAILABLE', serverId: 'gone', reason: 'removed' },
      { code: 'MCP_SERVER_UNAVAILABLE', serverId: 'off', reason: 'disabled' },
    ]);
  });

  it('carries no warnings when every named server is there', async () => {
    worker ??= await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    const { runId } = await client.enqueueRun({
      assistant: { model: 'scripted:test', mcpServers: ['kept'], script: [{ text: 'done' }] },
      input: { prompt: 'hello' },
    });
    const result = runResultSchema.parse((await waitForJob(queue, runId, 60_000)).returnvalue);
    expect(result.warnings).toBeUndefined();
  });
});
