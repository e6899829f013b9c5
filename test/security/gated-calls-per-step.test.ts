import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { QUEUE_NAMES, runResultSchema } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { enqueueRun, eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

const counterTool = 'mcp__fx__counterIncrement';
const CAP = 3;
const CALLS = 200;

/** Keys under `match`, read with SCAN (the Redis is shared). */
async function keysMatching(redis: TestContext['redis'], match: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match, count: 500 })) keys.push(...(batch as string[]));
  return [...new Set(keys)];
}

// The AI SDK asks a gated tool for approval before `execute` runs, so the per-step cap has to
// decide before that: a step with hundreds of calls of a gated tool must not create hundreds of
// approval records, approval jobs and inbox entries.
describe('calls of a gated tool past the per-step cap', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let approvals: Queue;
  let folder: string;
  let counterFile: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-gated-cap-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }), alwaysAsk: ['counter_increment'] },
    });
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_MAX_TOOL_CALLS_PER_STEP: String(CAP) },
    });
    queue = runsQueue(ctx);
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await worker?.close();
    for (const each of [queue, approvals]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('ask for at most the cap of approvals; the rest get the budget error and nothing runs undecided', async () => {
    await enqueueRun(queue, {
      runId: 'gated-flood',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['fx'],
          script: [
            {
              toolCalls: Array.from({ length: CALLS }, (_, index) => ({
                toolName: counterTool,
                input: { note: `n-${index}` },
              })),
            },
            { text: 'finished' },
          ],
        },
        input: { prompt: 'count a lot' },
      },
    });
    // Parked: the run waits on its approvals' children.
    await eventually(async () => ((await queue.getJobState('gated-flood')) === 'waiting-children' ? true : undefined));
    const pending = await listPendingApprovals(ctx, { runId: 'gated-flood' });
    expect(pending).toHaveLength(CAP);
    const jobCounts = await approvals.getJobCounts();
    expect(Object.values(jobCounts).reduce((sum, count) => sum + count, 0)).toBe(CAP);
    const records = await keysMatching(ctx.redis, `${ctx.prefix}:approval.*`);
    expect(records).toHaveLength(CAP);
    expect(await readCounterNotes(counterFile)).toEqual([]);

    // The first calls of the list are the ones asked about.
    expect(pending.map((request) => (request.input as { note: string }).note).sort()).toEqual(['n-0', 'n-1', 'n-2']);
    for (const request of pending)
      await decide(ctx, { approvalId: request.approvalId, approved: true, decidedBy: 'alice' });
    const finished = await waitForJob(queue, 'gated-flood', 120_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls).toHaveLength(CALLS);
    expect(result.toolCalls.filter((call) => !call.isError)).toHaveLength(CAP);
    const refused = result.toolCalls.filter((call) => call.isError);
    expect(refused).toHaveLength(CALLS - CAP);
    for (const call of refused) {
      expect(call.approval).toBeUndefined();
      expect(JSON.stringify(call.output)).toContain('AGENTQ_MAX_TOOL_CALLS_PER_STEP');
    }
    expect((await readCounterNotes(counterFile)).sort()).toEqual(['n-0', 'n-1', 'n-2']);
    // No approval was asked for after the decisions either.
    expect(await keysMatching(ctx.redis, `${ctx.prefix}:approval.*`)).toHaveLength(CAP);
  }, 180_000);
});
