import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import { ServerStore } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { eventually } from '../helpers/eventually.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { writeCatalogEntry } from './helpers/catalog.js';
import { enqueueRun, runsQueue, startTestWorker, waitForJob, stopWorkerSuite } from './helpers/worker-harness.js';

describe('a run whose MCP server answers a tool call without end', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let fixture: HttpFixture;

  beforeAll(async () => {
    ctx = createTestContext();
    fixture = await startHttpFixture({ hugeResult: true });
    const definition = await new ServerStore({ redis: ctx.redis, prefix: ctx.prefix }).put({
      id: 'flood',
      transport: { type: 'streamable-http', url: fixture.url },
      timeouts: { callMs: 60_000 },
    });
    await writeCatalogEntry({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition,
      tools: [
        { name: 'huge_result', description: 'Answers at length.', inputSchema: { type: 'object', properties: {} } },
        { name: 'counter_increment', description: 'Increments a counter.', inputSchema: { type: 'object' } },
      ],
    });
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      // A message may then take 4 × 16384 + 1048576 = 1114112 bytes.
      env: { AGENTQ_ALLOW_PRIVATE_FETCH: 'true', AGENTQ_TOOL_RESULT_MAX_BYTES: '16384' },
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await fixture?.stop();
    await stopWorkerSuite({ worker, queue, ctx });
  });

  it('gives the model a tool error naming the setting, calls once, and the next call works on a new connection', async () => {
    await enqueueRun(queue, {
      runId: 'flood-1',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['flood'],
          script: [
            { toolCalls: [{ toolName: 'mcp__flood__hugeResult', input: {} }] },
            { toolCalls: [{ toolName: 'mcp__flood__counterIncrement', input: {} }] },
            { text: 'done' },
          ],
        },
        input: { prompt: 'read it all' },
      },
    });
    const finished = await waitForJob(queue, 'flood-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls.map((call) => call.isError)).toEqual([true, false]);
    const refusal = JSON.stringify(result.toolCalls[0]?.output);
    expect(refusal).toContain('1114112');
    expect(refusal).toContain('AGENTQ_TOOL_RESULT_MAX_BYTES');
    expect(JSON.stringify(result.toolCalls[1]?.output)).toContain('counter is 1');

    await eventually(async () => (await fixture.stats()).endlessClosed === 1, 'the worker to hang up');
    const stats = await fixture.stats();
    // Asked once, never retried; the second call went over a new session.
    expect(stats.endlessStarted).toBe(1);
    expect(stats.endlessBytes).toBeLessThan(32 * 1024 * 1024);
    expect(stats.initializeCount).toBe(2);
  });
});
