import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, warmServer, writeCatalogEntry } from './helpers/catalog.js';
import {
  enqueueRaw,
  enqueueRun,
  runsQueue,
  startTestWorker,
  waitForJob,
  stopWorkerSuite,
} from './helpers/worker-harness.js';

describe('run failure semantics', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fixture', transport: fixtureStdioTransport() },
    });
    // Cached tools of a server whose process dies at once: calls fail, the run must not.
    const dead = await putServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'dead',
        transport: { type: 'stdio', command: 'sh', args: ['-c', 'exit 3'] },
        timeouts: { connectMs: 3_000 },
      },
    });
    await writeCatalogEntry({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: dead,
      tools: [{ name: 'ping', description: 'Pings.', inputSchema: { type: 'object', properties: {} } }],
    });
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await stopWorkerSuite({ worker, queue, ctx });
  });

  it('hands a failing tool and a dead server to the model as tool errors, and completes', async () => {
    await enqueueRun(queue, {
      runId: 'tool-error',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['fixture', 'dead'],
          script: [
            { toolCalls: [{ toolName: 'mcp__fixture__failAlways', input: {} }] },
            { toolCalls: [{ toolName: 'mcp__dead__ping', input: {} }] },
            { text: 'I could not do it.' },
          ],
        },
        input: { prompt: 'try' },
      },
    });
    const finished = await waitForJob(queue, 'tool-error');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('I could not do it.');
    expect(result.toolCalls).toHaveLength(2);
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'mcp__fixture__failAlways', isError: true });
    expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('fail_always failed on purpose');
    expect(result.toolCalls[1]).toMatchObject({ toolName: 'mcp__dead__ping', isError: true });
  });

  it('fails a bad run spec at once, naming the field, without retrying', async () => {
    await enqueueRaw(queue, {
      runId: 'bad-spec',
      data: { assistant: { model: 'no colon here' }, input: { prompt: 'hi' } },
      attempts: 5,
    });
    const finished = await waitForJob(queue, 'bad-spec');
    expect(finished.state).toBe('failed');
    expect(finished.attemptsMade).toBe(1);
    expect(finished.failedReason).toContain('assistant.model');
  });

  it('fails a run whose provider key is missing at once, saying which key', async () => {
    await enqueueRun(queue, {
      runId: 'missing-key',
      spec: { assistant: { model: 'openai:gpt-4o-mini' }, input: { prompt: 'hi' } },
      attempts: 5,
    });
    const finished = await waitForJob(queue, 'missing-key');
    expect(finished.state).toBe('failed');
    expect(finished.attemptsMade).toBe(1);
    expect(finished.failedReason).toContain('OPENAI_API_KEY');
  });

  it('fails a run with an unknown provider at once, if one gets past the enqueue check', async () => {
    await enqueueRaw(queue, {
      runId: 'unknown-provider',
      data: { assistant: { model: 'nosuch:model' }, input: { prompt: 'hi' } },
      attempts: 5,
    });
    const finished = await waitForJob(queue, 'unknown-provider');
    expect(finished.state).toBe('failed');
    expect(finished.attemptsMade).toBe(1);
    expect(finished.failedReason).toContain('nosuch');
  });
});
