import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import {
  AgentqError,
  QUEUE_NAMES,
  runResultSchema,
  type RunCheckpoint,
  type RunSpecInput,
  type ServerDefinition,
} from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer, writeCatalogEntry } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  eventually,
  readCheckpoint,
  runsQueue,
  startTestWorker,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

const counterTool = 'mcp__fx__counterIncrement';

describe('durable approvals', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let approvalsQueue: Queue;
  let folder: string;
  let counterFile: string;
  let fixture: ServerDefinition;

  const notes = async () => await readCounterNotes(counterFile);

  const spec = (options: { notes: string[]; timeoutMs?: number }): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      script: [
        { toolCalls: options.notes.map((note) => ({ toolName: counterTool, input: { note } })) },
        { text: 'finished' },
      ],
    },
    input: { prompt: 'count, with permission' },
    approval: { requireFor: ['fx:counter_increment'], timeoutMs: options.timeoutMs },
  });

  const parked = async (runId: string, count = 1) => {
    await eventually(async () => {
      const job = await Job.fromId(queue, runId);
      return job && (await job.getState()) === 'waiting-children' ? true : undefined;
    });
    return await eventually(async () => {
      const pending = await listPendingApprovals(ctx, { runId });
      return pending.length === count ? pending : undefined;
    });
  };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-approvals-'));
    counterFile = join(folder, 'counter.log');
    ({ definition: fixture } = await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    }));
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
    approvalsQueue = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await worker?.close();
    for (const each of [queue, approvalsQueue]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('parks the run without a worker, then runs the approved tool exactly once', async () => {
    await enqueueRun(queue, { runId: 'approve-1', spec: spec({ notes: ['approve-1'] }) });
    const [pending] = await parked('approve-1');
    expect(pending).toMatchObject({ runId: 'approve-1', toolName: counterTool, input: { note: 'approve-1' } });
    const checkpoint = (await readCheckpoint(ctx, 'approve-1')) as RunCheckpoint;
    expect(checkpoint.status).toBe('waiting-approval');
    expect(checkpoint.pendingApprovals.map((approval) => approval.approvalId)).toEqual([pending?.approvalId]);
    const approvalJob = await Job.fromId(approvalsQueue, pending?.approvalId as string);
    expect(await approvalJob?.getState()).toBe('delayed');
    expect(await notes()).not.toContain('approve-1');

    await decide(ctx, { approvalId: pending?.approvalId as string, approved: true, decidedBy: 'alice' });
    const finished = await waitForJob(queue, 'approve-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('finished');
    expect(result.toolCalls[0]).toMatchObject({
      toolName: counterTool,
      isError: false,
      approval: { approvalId: pending?.approvalId, approved: true },
    });
    expect((await notes()).filter((note) => note === 'approve-1')).toHaveLength(1);
  });

  it('never runs a denied tool, and the model sees the denial', async () => {
    await enqueueRun(queue, { runId: 'deny-1', spec: spec({ notes: ['deny-1'] }) });
    const [pending] = await parked('deny-1');
    await decide(ctx, {
      approvalId: pending?.approvalId as string,
      approved: false,
      reason: 'not today',
      decidedBy: 'bob',
    });
    const finished = await waitForJob(queue, 'deny-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]?.approval).toMatchObject({ approved: false });
    expect(result.toolCalls[0]?.output).toMatchObject({ denied: true });
    expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('not today');
    expect(await notes()).not.toContain('deny-1');
  });

  it('denies with reason expired when nobody decides in time, and refuses a late decision', async () => {
    await enqueueRun(queue, { runId: 'expire-1', spec: spec({ notes: ['expire-1'], timeoutMs: 400 }) });
    const finished = await waitForJob(queue, 'expire-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    const call = result.toolCalls[0];
    expect(call?.output).toMatchObject({ denied: true, reason: 'expired' });
    expect(await notes()).not.toContain('expire-1');
    const late = await decide(ctx, {
      approvalId: call?.approval?.approvalId as string,
      approved: true,
      decidedBy: 'late',
    }).catch((error: unknown) => error);
    expect(AgentqError.isInstance(late) && late.code).toBe('EXPIRED');
  });

  it('continues in the same attempt when the approval is settled before the run could park', async () => {
    // Expires at once: the approval job is due as soon as it is added, and may well be done
    // before the run calls moveToWaitingChildren.
    await enqueueRun(queue, { runId: 'instant-1', spec: spec({ notes: ['instant-1'], timeoutMs: 1 }) });
    const finished = await waitForJob(queue, 'instant-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]?.output).toMatchObject({ denied: true, reason: 'expired' });
    expect(result.steps).toHaveLength(2);
    expect(await notes()).not.toContain('instant-1');
  });

  it('waits for two gated calls of one step together and honours mixed decisions', async () => {
    await enqueueRun(queue, { runId: 'mixed-1', spec: spec({ notes: ['mixed-yes', 'mixed-no'] }) });
    const pending = await parked('mixed-1', 2);
    const yes = pending.find((approval) => (approval.input as { note: string }).note === 'mixed-yes');
    const no = pending.find((approval) => (approval.input as { note: string }).note === 'mixed-no');
    await decide(ctx, { approvalId: yes?.approvalId as string, approved: true, decidedBy: 'carol' });
    // One decision is not enough: the run stays parked until both are in.
    const job = await Job.fromId(queue, 'mixed-1');
    expect(await job?.getState()).toBe('waiting-children');
    await decide(ctx, { approvalId: no?.approvalId as string, approved: false, decidedBy: 'carol' });
    const finished = await waitForJob(queue, 'mixed-1');
    expect(finished.state).toBe('completed');
    const counted = await notes();
    expect(counted.filter((note) => note === 'mixed-yes')).toHaveLength(1);
    expect(counted).not.toContain('mixed-no');
  });

  it('answers a second decision with ALREADY_DECIDED and keeps the first', async () => {
    await enqueueRun(queue, { runId: 'double-1', spec: spec({ notes: ['double-1'] }) });
    const [pending] = await parked('double-1');
    const approvalId = pending?.approvalId as string;
    await decide(ctx, { approvalId, approved: false, reason: 'first', decidedBy: 'dave' });
    const second = await decide(ctx, { approvalId, approved: true, decidedBy: 'erin' }).catch(
      (error: unknown) => error,
    );
    expect(AgentqError.isInstance(second) && second.code).toBe('ALREADY_DECIDED');
    const finished = await waitForJob(queue, 'double-1');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]?.approval?.approved).toBe(false);
    expect(await notes()).not.toContain('double-1');
  });

  it('answers unknown ids with NOT_FOUND and bad input with VALIDATION', async () => {
    const unknown = await decide(ctx, { approvalId: 'nope', approved: true, decidedBy: 'x' }).catch(
      (error: unknown) => error,
    );
    expect(AgentqError.isInstance(unknown) && unknown.code).toBe('NOT_FOUND');
    const invalid = await decide(ctx, { approvalId: 'nope', approved: true, decidedBy: '' }).catch(
      (error: unknown) => error,
    );
    expect(AgentqError.isInstance(invalid) && invalid.code).toBe('VALIDATION');
  });

  // Expiry is Redis's to judge: a job started before it (here Bull Board's "promote", as a worker
  // whose clock runs fast would) with no decision goes back to wait, and a decision still lands.
  it('puts an approval job promoted without a decision (Bull Board) back to wait', async () => {
    await enqueueRun(queue, { runId: 'promote-1', spec: spec({ notes: ['promote-1'] }) });
    const [pending] = await parked('promote-1');
    const approvalId = pending?.approvalId as string;
    await (await Job.fromId(approvalsQueue, approvalId))?.promote();
    const rested = async () => {
      const job = (await Job.fromId(approvalsQueue, approvalId)) as Job;
      const state = await job.getState();
      return job.attemptsStarted >= 1 && ['delayed', 'completed', 'failed'].includes(state) ? state : undefined;
    };
    expect(await eventually(rested)).toBe('delayed');
    expect(await (await Job.fromId(queue, 'promote-1'))?.getState()).toBe('waiting-children');
    await decide(ctx, { approvalId, approved: true, decidedBy: 'x' });
    const finished = await waitForJob(queue, 'promote-1');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]?.approval?.approved).toBe(true);
    expect((await notes()).filter((note) => note === 'promote-1')).toHaveLength(1);
  });

  it('refuses an approved call whose tool schema changed in the cache while it waited', async () => {
    await enqueueRun(queue, { runId: 'schema-1', spec: spec({ notes: ['schema-1'] }) });
    const [pending] = await parked('schema-1');
    const entry = JSON.parse((await ctx.redis.get(keyNames(ctx.prefix).tools('fx'))) ?? 'null') as {
      tools: Array<{ name: string; inputSchema: Record<string, unknown> }>;
    };
    const changed = entry.tools.map((tool) =>
      tool.name === 'counter_increment'
        ? {
            ...tool,
            inputSchema: { type: 'object', properties: { note: { type: 'string' }, times: { type: 'number' } } },
          }
        : tool,
    );
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition: fixture, tools: changed as never });
    await decide(ctx, { approvalId: pending?.approvalId as string, approved: true, decidedBy: 'frank' });
    const finished = await waitForJob(queue, 'schema-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]?.approval?.approved).toBe(false);
    expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('schema');
    expect(await notes()).not.toContain('schema-1');
  });
});
