import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runResultSchema, type RunSpecInput } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from './helpers/catalog.js';
import {
  enqueueRun,
  readCheckpoint,
  runsQueue,
  spawnWorkerProcess,
  waitForJob,
  type WorkerProcess,
} from './helpers/worker-harness.js';

const target = 'mcp__fx__counterIncrement';

// A worker dies after a meta tool's result is in the journal and before its step's checkpoint.
// The next worker replays that result instead of running the tool again; what the result implied
// (the tool was inspected) must come back with it, or the model's tool_invoke is refused.
describe('kill -9 between a meta tool result and its checkpoint', () => {
  let ctx: TestContext;
  let queue: Queue;
  let folder: string;
  let counterFile: string;
  let processes: WorkerProcess[] = [];

  const spawn = async (env: Record<string, string> = {}) => {
    const worker = await spawnWorkerProcess({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, env });
    processes.push(worker);
    return worker;
  };

  const spec = (firstCall: { toolName: string; input: unknown }, note: string): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      // Small window: the fixture's tools are deferred behind the meta tools.
      contextWindow: 1_000,
      script: [
        { toolCalls: [firstCall] },
        { toolCalls: [{ toolName: 'tool_invoke', input: { name: target, params: { note } } }] },
        { text: 'done' },
      ],
    },
    input: { prompt: 'count once' },
  });

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-meta-crash-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile, tools: 30 }) },
    });
    queue = runsQueue(ctx);
  });

  afterEach(async () => {
    await Promise.all(processes.map((worker) => worker.kill()));
    processes = [];
  });

  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const crashThenResume = async (runId: string, firstCall: { toolName: string; input: unknown }) => {
    const doomed = await spawn({ AGENTQ_TEST_CRASH_AT: 'after-tool-result', AGENTQ_TEST_CRASH_RUN: runId });
    await enqueueRun(queue, { runId, spec: spec(firstCall, runId) });
    await doomed.exited;
    // The journal holds the meta tool's result; the checkpoint is still at step 0.
    const journal = await ctx.redis.hlen(keyNames(ctx.prefix).runToolResults(runId));
    expect(journal).toBe(1);
    const checkpoint = await readCheckpoint(ctx, runId);
    if (checkpoint !== null) expect(checkpoint.step).toBe(0);

    await spawn();
    const finished = await waitForJob(queue, runId, 60_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.tools?.deferred).toBeGreaterThan(5);
    expect(result.toolCalls.map((call) => call.toolName)).toEqual([firstCall.toolName, 'tool_invoke']);
    const invoke = result.toolCalls[1];
    expect(invoke?.isError).toBe(false);
    expect((invoke?.output as { refused?: boolean } | undefined)?.refused).not.toBe(true);
    expect((await readCounterNotes(counterFile)).filter((note) => note === runId)).toHaveLength(1);
  };

  it('after tool_inspect: the resumed tool_invoke runs exactly once', async () => {
    await crashThenResume('crash-after-inspect', { toolName: 'tool_inspect', input: { name: target } });
  });

  it('after a verbose tool_search: the resumed tool_invoke runs exactly once', async () => {
    await crashThenResume('crash-after-search', {
      toolName: 'tool_search',
      input: { query: 'counter increment', verbose: true },
    });
  });
});
