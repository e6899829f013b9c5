import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import { ServerStore } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { writeCatalogEntry } from './helpers/catalog.js';
import { enqueueRun, runsQueue, startTestWorker, waitForJob, stopWorkerSuite } from './helpers/worker-harness.js';

describe('tool calls to a Streamable HTTP MCP server', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let fixture: HttpFixture;
  let folder: string;
  let counterFile: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-http-'));
    counterFile = join(folder, 'counter.log');
    fixture = await startHttpFixture({ counterFile });
    const definition = await new ServerStore({ redis: ctx.redis, prefix: ctx.prefix }).put({
      id: 'web',
      transport: { type: 'streamable-http', url: fixture.url },
    });
    await writeCatalogEntry({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition,
      tools: [
        {
          name: 'counter_increment',
          description: 'Increments a counter.',
          inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
        },
      ],
    });
    // The fixture listens on loopback, which workers refuse unless told otherwise.
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_ALLOW_PRIVATE_FETCH: 'true' },
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await fixture?.stop();
    await stopWorkerSuite({ worker, queue, ctx });
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('calls the tool over HTTP through the pool, reusing one connection for several calls', async () => {
    await enqueueRun(queue, {
      runId: 'http-1',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['web'],
          script: [
            { toolCalls: [{ toolName: 'mcp__web__counterIncrement', input: { note: 'http-a' } }] },
            { toolCalls: [{ toolName: 'mcp__web__counterIncrement', input: { note: 'http-b' } }] },
            { text: 'done' },
          ],
        },
        input: { prompt: 'count twice' },
      },
    });
    const finished = await waitForJob(queue, 'http-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls.map((call) => call.isError)).toEqual([false, false]);
    expect(JSON.stringify(result.toolCalls[1]?.output)).toContain('counter is 2');
    const lines = (await readFile(counterFile, 'utf8')).split('\n').filter(Boolean);
    expect(lines.map((line) => line.split(' ').at(-1))).toEqual(['http-a', 'http-b']);
    expect((await fixture.stats()).initializeCount).toBe(1);
  });
});
