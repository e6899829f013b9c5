import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCounterNotes, startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';
import {
  enqueueRun,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

// A server that speaks only the legacy HTTP+SSE transport, defined as `streamable-http` the way an
// operator would write it. Both roles connect through `@agentq/mcp-connect`, so both fall back to
// SSE: the warmer lists its tools into the cache, and a run then calls one of them. Before the
// connection layer was shared, the warmer fell back and the worker did not, so the list arrived
// and every call failed.
describe('an MCP server without Streamable HTTP, reached over SSE by warmer and worker', () => {
  let harness: WarmerHarness;
  let fixture: HttpFixture;
  let worker: AgentWorker | undefined;
  let queue: Queue | undefined;
  let folder: string;
  let counterFile: string;

  beforeAll(async () => {
    harness = await createWarmerHarness();
    folder = await mkdtemp(join(tmpdir(), 'agentq-sse-only-'));
    counterFile = join(folder, 'counter.log');
    fixture = await startHttpFixture({ sse: true, tools: 1, counterFile });
    // Loopback fixture: both roles are told to allow private addresses.
    await harness.startWarmer();
  });

  afterAll(async () => {
    await stopWorkerSuite({ worker, queue });
    await harness?.close();
    await fixture?.stop();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('warms the tool list over SSE, and a run calls a tool over SSE', async () => {
    await harness.putServer({
      id: 'legacy',
      transport: { type: 'streamable-http', url: fixture.url },
      timeouts: { connectMs: 20_000, listMs: 20_000, callMs: 20_000 },
    });
    const entry = await waitFor(() => harness.entry('legacy'), { what: 'legacy warmed', timeoutMs: 45_000 });
    expect(entry.state).toBe('connected');
    expect(entry.tools.map((tool) => tool.name)).toContain('counter_increment');

    worker = await startTestWorker({
      redisUrl: harness.ctx.redisUrl,
      prefix: harness.ctx.prefix,
      env: { AGENTQ_ALLOW_PRIVATE_FETCH: 'true' },
    });
    queue = runsQueue(harness.ctx);
    await enqueueRun(queue, {
      runId: 'sse-only-1',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['legacy'],
          script: [
            { toolCalls: [{ toolName: 'mcp__legacy__counterIncrement', input: { note: 'over-sse' } }] },
            { text: 'done' },
          ],
        },
        input: { prompt: 'count once' },
      },
    });
    const finished = await waitForJob(queue, 'sse-only-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls.map((call) => [call.toolName, call.isError])).toEqual([
      ['mcp__legacy__counterIncrement', false],
    ]);
    expect(await readCounterNotes(counterFile)).toEqual(['over-sse']);
  });
});
