import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { QUEUE_NAMES, runResultSchema, type RunSpecInput } from '@agentq/shared';
import { recordDecision } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { enqueueRun, eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

describe('decisions that do not come through decide()', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let decisions: Queue;
  let approvals: Queue;
  let folder: string;
  let counterFile: string;

  const notes = async () => await readCounterNotes(counterFile);

  const spec = (note: string): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      script: [{ toolCalls: [{ toolName: 'mcp__fx__counterIncrement', input: { note } }] }, { text: 'done' }],
    },
    input: { prompt: 'count' },
    approval: { requireFor: ['mcp__fx__*'] },
  });

  const pendingOf = async (runId: string) =>
    await eventually(async () => {
      const [pending] = await listPendingApprovals(ctx, { runId });
      const state = await (await Job.fromId(queue, runId))?.getState();
      return pending && state === 'waiting-children' ? pending : undefined;
    });

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-decision-paths-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
    decisions = new Queue(QUEUE_NAMES.decisions, { connection: ctx.redis, prefix: ctx.prefix });
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await worker?.close();
    for (const each of [queue, decisions, approvals]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('takes decisions sent as jobs on the decisions queue', async () => {
    await enqueueRun(queue, { runId: 'queued-decision', spec: spec('queued-decision') });
    const pending = await pendingOf('queued-decision');
    await decisions.add('decision', { approvalId: pending.approvalId, approved: true, decidedBy: 'billing-service' });
    const finished = await waitForJob(queue, 'queued-decision');
    expect(runResultSchema.parse(finished.returnvalue).toolCalls[0]?.approval?.approved).toBe(true);
    expect((await notes()).filter((note) => note === 'queued-decision')).toHaveLength(1);
  });

  it('fails a decision job that cannot apply once, with its code, and never retries it', async () => {
    await decisions.add(
      'decision',
      { approvalId: 'unknown', approved: true, decidedBy: 'x' },
      { jobId: 'bad-1', attempts: 3 },
    );
    await decisions.add('decision', { approvalId: 'unknown', approved: 'yes' }, { jobId: 'bad-2', attempts: 3 });
    for (const jobId of ['bad-1', 'bad-2']) {
      const job = await eventually(async () => {
        const found = await Job.fromId(decisions, jobId);
        return found && (await found.getState()) === 'failed' ? await Job.fromId(decisions, jobId) : undefined;
      });
      expect(job?.attemptsMade).toBe(1);
    }
    expect((await Job.fromId(decisions, 'bad-1'))?.failedReason).toContain('unknown');
  });

  it('delivers a decision that was recorded but never promoted (crash in between): the sweeper promotes it', async () => {
    await enqueueRun(queue, { runId: 'swept', spec: spec('swept') });
    const pending = await pendingOf('swept');
    // Record only, as a decider that died before promoting would have.
    await recordDecision({
      redis: ctx.redis,
      prefix: ctx.prefix,
      input: { approvalId: pending.approvalId, approved: true, decidedBy: 'crashed-decider' },
    });
    expect(await (await Job.fromId(approvals, pending.approvalId))?.getState()).toBe('delayed');
    const finished = await waitForJob(queue, 'swept');
    expect(runResultSchema.parse(finished.returnvalue).toolCalls[0]?.approval?.approved).toBe(true);
    expect((await notes()).filter((note) => note === 'swept')).toHaveLength(1);
  });
});
