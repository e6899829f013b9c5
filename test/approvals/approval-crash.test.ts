import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { QUEUE_NAMES, runResultSchema, type RunSpecInput } from '@agentq/shared';
import { Job, Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  eventually,
  runsQueue,
  spawnWorkerProcess,
  waitForJob,
  type WorkerProcess,
} from '../worker/helpers/worker-harness.js';

describe('kill -9 of the worker at each point of an approval', () => {
  let ctx: TestContext;
  let queue: Queue;
  let approvalsQueue: Queue;
  let folder: string;
  let counterFile: string;
  let processes: WorkerProcess[] = [];

  const notes = async () => await readCounterNotes(counterFile);

  const spec = (note: string): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      script: [{ toolCalls: [{ toolName: 'mcp__fx__counterIncrement', input: { note } }] }, { text: 'done' }],
    },
    input: { prompt: 'count' },
    approval: { requireFor: ['mcp__fx__counterIncrement'] },
  });

  const spawn = async (env: Record<string, string> = {}) => {
    const worker = await spawnWorkerProcess({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, env });
    processes.push(worker);
    return worker;
  };

  const pendingOf = async (runId: string) =>
    await eventually(async () => {
      const [pending] = await listPendingApprovals(ctx, { runId });
      return pending;
    });

  const approvalJobsOf = async (runId: string) =>
    (await approvalsQueue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized'])).filter(
      (job) => job.data?.runId === runId,
    );

  const expectApprovedOnce = async (runId: string) => {
    const finished = await waitForJob(queue, runId, 60_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]?.approval?.approved).toBe(true);
    expect((await notes()).filter((note) => note === runId)).toHaveLength(1);
    expect(await approvalJobsOf(runId)).toHaveLength(1);
  };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-approval-crash-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
    queue = runsQueue(ctx);
    approvalsQueue = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterEach(async () => {
    await Promise.all(processes.map((worker) => worker.kill()));
    processes = [];
  });

  afterAll(async () => {
    for (const each of [queue, approvalsQueue]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('after the checkpoint, before the child add: a decision made meanwhile is used', async () => {
    const runId = 'crash-after-checkpoint';
    const doomed = await spawn({ AGENTQ_TEST_CRASH_AT: 'after-checkpoint', AGENTQ_TEST_CRASH_RUN: runId });
    await enqueueRun(queue, { runId, spec: spec(runId) });
    await doomed.exited;
    const pending = await pendingOf(runId);
    expect(await approvalJobsOf(runId)).toHaveLength(0);
    // Decided before any approval job exists, before the run ever reached moveToWaitingChildren.
    await decide(ctx, { approvalId: pending.approvalId, approved: true, decidedBy: 'early' });
    await spawn();
    await expectApprovedOnce(runId);
  });

  it('after the child add, before parking', async () => {
    const runId = 'crash-after-child-add';
    const doomed = await spawn({ AGENTQ_TEST_CRASH_AT: 'after-child-add', AGENTQ_TEST_CRASH_RUN: runId });
    await enqueueRun(queue, { runId, spec: spec(runId) });
    await doomed.exited;
    const pending = await pendingOf(runId);
    expect(await approvalJobsOf(runId)).toHaveLength(1);
    await decide(ctx, { approvalId: pending.approvalId, approved: true, decidedBy: 'someone' });
    await spawn();
    await expectApprovedOnce(runId);
  });

  it('while parked, with no worker at all', async () => {
    const runId = 'crash-while-parked';
    const first = await spawn();
    await enqueueRun(queue, { runId, spec: spec(runId) });
    const pending = await pendingOf(runId);
    await eventually(async () =>
      (await (await Job.fromId(queue, runId))?.getState()) === 'waiting-children' ? true : undefined,
    );
    await first.kill();
    await decide(ctx, { approvalId: pending.approvalId, approved: true, decidedBy: 'someone' });
    await spawn();
    await expectApprovedOnce(runId);
  });

  it('after resume, before the approved tool executes', async () => {
    const runId = 'crash-after-resume';
    const doomed = await spawn({ AGENTQ_TEST_CRASH_AT: 'after-resume', AGENTQ_TEST_CRASH_RUN: runId });
    await enqueueRun(queue, { runId, spec: spec(runId) });
    const pending = await pendingOf(runId);
    await decide(ctx, { approvalId: pending.approvalId, approved: true, decidedBy: 'someone' });
    await doomed.exited;
    expect(await notes()).not.toContain(runId);
    await spawn();
    await expectApprovedOnce(runId);
  });

  it('a denied call stays denied across a crash after resume', async () => {
    const runId = 'crash-denied';
    const doomed = await spawn({ AGENTQ_TEST_CRASH_AT: 'after-resume', AGENTQ_TEST_CRASH_RUN: runId });
    await enqueueRun(queue, { runId, spec: spec(runId) });
    const pending = await pendingOf(runId);
    await decide(ctx, { approvalId: pending.approvalId, approved: false, decidedBy: 'someone' });
    await doomed.exited;
    await spawn();
    const finished = await waitForJob(queue, runId, 60_000);
    expect(finished.state).toBe('completed');
    expect(runResultSchema.parse(finished.returnvalue).toolCalls[0]?.approval?.approved).toBe(false);
    expect(await notes()).not.toContain(runId);
  });
});
