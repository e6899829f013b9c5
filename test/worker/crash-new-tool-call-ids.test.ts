import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runResultSchema } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { startFakeProviderServer, type FakeProviderServer } from '../fixtures/providers/fake-provider-server.js';
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

interface ChatRequest {
  messages: Array<{ role: string; content?: unknown }>;
  tools?: Array<{ function: { name: string } }>;
}

// A worker dies after a tool's result is in the journal and before its step's checkpoint, with a
// model that, like a real one, makes up new tool call ids each time it answers. The next worker
// must replay the step's recorded answer (and so its ids) instead of asking again: asked again,
// the model would call the tool under a new id, which the journal does not know.
describe('kill -9 between a tool result and its checkpoint, with a model that makes up new tool call ids', () => {
  let ctx: TestContext;
  let queue: Queue;
  let folder: string;
  let counterFile: string;
  let server: FakeProviderServer;
  let processes: WorkerProcess[] = [];

  /** Calls the counter until the conversation holds two results, then answers in text. */
  const answer = (request: ChatRequest, note: string) => {
    const results = request.messages.filter((message) => message.role === 'tool').length;
    const tool = request.tools?.map((entry) => entry.function.name).find((name) => name.includes('counterIncrement'));
    const message =
      results >= 2 || tool === undefined
        ? { role: 'assistant', content: 'counted' }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: `call_${randomUUID().slice(0, 8)}`,
                type: 'function',
                function: { name: tool, arguments: JSON.stringify({ note: `${note}-${results}` }) },
              },
            ],
          };
    return {
      id: `chatcmpl-${randomUUID().slice(0, 8)}`,
      object: 'chat.completion',
      created: 1_764_547_200,
      model: 'fake-chat-1',
      choices: [{ index: 0, message, finish_reason: results >= 2 ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 },
    };
  };

  const spawn = async (env: Record<string, string> = {}) => {
    const worker = await spawnWorkerProcess({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { OPENAI_COMPATIBLE_BASE_URL: server.baseUrl, ...env },
    });
    processes.push(worker);
    return worker;
  };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-new-ids-crash-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
    server = await startFakeProviderServer({
      fallback: (request) => {
        const body = request.body as ChatRequest;
        const prompt = body.messages.find((message) => message.role === 'user')?.content;
        return { status: 200, body: answer(body, String(prompt)) };
      },
    });
    queue = runsQueue(ctx);
  });

  afterEach(async () => {
    await Promise.all(processes.map((worker) => worker.kill()));
    processes = [];
  });

  afterAll(async () => {
    await server?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const crashThenResume = async (runId: string, crashedStep: number) => {
    const doomed = await spawn({
      AGENTQ_TEST_CRASH_AT: 'after-tool-result',
      AGENTQ_TEST_CRASH_RUN: runId,
      AGENTQ_TEST_CRASH_SKIP: String(crashedStep),
    });
    await enqueueRun(queue, {
      runId,
      spec: { assistant: { model: 'openai-compatible:fake', mcpServers: ['fx'] }, input: { prompt: runId } },
    });
    await doomed.exited;
    // The crashed step's call ran and is journalled; its checkpoint is not written.
    const ranBefore = (await readCounterNotes(counterFile)).filter((note) => note.startsWith(runId));
    expect(ranBefore).toHaveLength(crashedStep + 1);
    expect((await readCheckpoint(ctx, runId))?.step ?? 0).toBe(crashedStep);

    await spawn();
    const finished = await waitForJob(queue, runId, 60_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('counted');
    // Each call ran exactly once, and the journal holds one entry per call the run made.
    const notes = (await readCounterNotes(counterFile)).filter((note) => note.startsWith(runId));
    expect(notes).toEqual([`${runId}-0`, `${runId}-1`]);
    const journal = await ctx.redis.hgetall(keyNames(ctx.prefix).runToolResults(runId));
    expect(Object.keys(journal).sort()).toEqual(result.toolCalls.map((call) => call.toolCallId).sort());
    expect(result.toolCalls).toHaveLength(2);
  };

  it('after the first step: the resumed run replays its answer and runs the tool once', async () => {
    await crashThenResume('new-ids-first', 0);
  });

  it('after the second step: the first step is not replayed into it, and each tool runs once', async () => {
    await crashThenResume('new-ids-second', 1);
  });
});
