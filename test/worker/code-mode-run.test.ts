import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient } from '@agentq/client';
import { recordedToolResultSchema, runResultSchema, type RunSpecInput } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from './helpers/catalog.js';
import { enqueueRun, runsQueue, spawnWorkerProcess, waitForJob, type WorkerProcess } from './helpers/worker-harness.js';

// One script, three MCP tools (two of them in a loop): the model spends one step on the work, and
// every call the script makes is journalled once, also when the worker dies in the middle of it.
const script = (runId: string) => `
const first = await tools.mcp__fx__tool0000({ query: 'all' });
const seen = [];
for (const n of [1, 2, 3]) {
  const page = await tools.mcp__fx__tool0001({ query: 'item ' + n });
  await tools.mcp__fx__counterIncrement({ note: '${runId}-' + n });
  seen.push(JSON.parse(page).arguments.query);
}
return { first: JSON.parse(first).tool, seen };`;

const nestedIds = () => {
  const outer = 'call_0_0';
  const names = [
    'tool0000',
    'tool0001',
    'counterIncrement',
    'tool0001',
    'counterIncrement',
    'tool0001',
    'counterIncrement',
  ];
  return names.map((name, index) => `${outer}#${index + 1}::mcp__fx__${name}`);
};

describe('code mode: one script calling MCP tools', () => {
  let ctx: TestContext;
  let queue: Queue;
  let folder: string;
  let counterFile: string;
  let processes: WorkerProcess[] = [];

  const spawn = async (env: Record<string, string> = {}) => {
    const worker = await spawnWorkerProcess({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_CODE_MODE: 'allowed', ...env },
    });
    processes.push(worker);
    return worker;
  };

  const spec = (runId: string): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      settings: { codeMode: true },
      script: [{ toolCalls: [{ toolName: 'tool_exec', input: { code: script(runId) } }] }, { text: 'done' }],
    },
    input: { prompt: 'go through the items' },
  });

  const journalOf = async (runId: string) => {
    const fields = await ctx.redis.hgetall(keyNames(ctx.prefix).runToolResults(runId));
    return new Map(Object.entries(fields).map(([id, text]) => [id, recordedToolResultSchema.parse(JSON.parse(text))]));
  };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-code-mode-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'fx',
        transport: fixtureStdioTransport({ counterFile, tools: 2 }),
        // A busy machine can take a while to start a stdio server.
        timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
      },
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

  const expectFinished = async (runId: string) => {
    const finished = await waitForJob(queue, runId, 150_000);
    expect(finished.state, finished.failedReason).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    // One model step for the work, one for the answer.
    expect(result.steps).toHaveLength(2);
    expect(result.toolCalls.map((call) => call.toolName)).toEqual(['tool_exec']);
    expect(result.toolCalls[0]?.output).toEqual({
      ok: true,
      result: { first: 'tool_0000', seen: ['item 1', 'item 2', 'item 3'] },
      toolCalls: 7,
    });
    const journal = await journalOf(runId);
    expect([...journal.keys()].sort()).toEqual(['call_0_0', ...nestedIds()].sort());
    expect((await readCounterNotes(counterFile)).filter((note) => note.startsWith(`${runId}-`)).sort()).toEqual([
      `${runId}-1`,
      `${runId}-2`,
      `${runId}-3`,
    ]);
    return journal;
  };

  it('runs the script in one step, journals each call once, and shows the calls under the script', async () => {
    await spawn();
    const runId = 'code-mode-plain';
    await enqueueRun(queue, { runId, spec: spec(runId) });
    await expectFinished(runId);
    const client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    try {
      const timeline = await client.getRunTimeline(runId);
      const exec = timeline.steps[0]?.calls[0];
      expect(exec?.toolName).toBe('tool_exec');
      expect((exec?.input as { code?: string }).code).toBe(script(runId));
      expect(exec?.inner.map((call) => call.toolCallId)).toEqual(nestedIds());
      expect(exec?.inner.every((call) => call.status === 'ok')).toBe(true);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('a worker killed mid-script: the resumed script replays finished calls and runs none twice', async () => {
    const runId = 'code-mode-crash';
    // Dies once the third call of the script (the first counter increment) is in the journal.
    const doomed = await spawn({
      AGENTQ_TEST_CRASH_AT: 'after-tool-result',
      AGENTQ_TEST_CRASH_RUN: runId,
      AGENTQ_TEST_CRASH_SKIP: '2',
    });
    await enqueueRun(queue, { runId, spec: spec(runId) });
    await doomed.exited;
    const before = await journalOf(runId);
    const finishedBefore = nestedIds().slice(0, 3);
    expect([...before.keys()].sort()).toEqual([...finishedBefore].sort());
    expect((await readCounterNotes(counterFile)).filter((note) => note.startsWith(`${runId}-`))).toEqual([
      `${runId}-1`,
    ]);

    await spawn();
    const after = await expectFinished(runId);
    // The calls finished before the crash were replayed: their journal entries are the same ones.
    for (const id of finishedBefore) expect(after.get(id)).toEqual(before.get(id));
  }, 180_000);
});
