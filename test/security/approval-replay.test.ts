import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import type { RunningApi } from '@agentq/api';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import {
  AgentqError,
  digestOf,
  QUEUE_NAMES,
  runResultSchema,
  silentLogger,
  type ApprovalJob,
  type RunCheckpoint,
  type RunResult,
  type RunSpecInput,
} from '@agentq/shared';
import { keyNames, readApprovalRecord, RunStore } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { startTestApi, type ApiCaller } from '../api/start-test-api.js';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { enqueueRaw, eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

// Hole 2: run R asks for two gated calls, a person approves call A only, R is cancelled, and R is
// enqueued again whose first call has A's tool call id but other arguments. On `main` that call ran
// at once, shown as approved with A's reason: the approval id came from the run id and the tool call
// id only, the cancel left the approved record, and the re-check compared the new call with the new
// checkpoint instead of with what the person had seen.
const counterTool = 'mcp__fx__counterIncrement';
const reasonForA = 'A is fine';

const twoCalls = (tag: string): RunSpecInput => ({
  assistant: {
    model: 'scripted:test',
    mcpServers: ['fx'],
    script: [
      {
        toolCalls: [
          { toolName: counterTool, input: { note: `${tag}-A` } },
          { toolName: counterTool, input: { note: `${tag}-B` } },
        ],
      },
      { text: 'finished' },
    ],
  },
  input: { prompt: 'count twice' },
});

const oneCall = (note: string): RunSpecInput => ({
  assistant: {
    model: 'scripted:test',
    mcpServers: ['fx'],
    script: [{ toolCalls: [{ toolName: counterTool, input: { note } }] }, { text: 'finished' }],
  },
  input: { prompt: 'count once' },
});

/** The ways a caller reaches runs and decisions. */
interface Path {
  enqueue(runId: string, spec: RunSpecInput): Promise<void>;
  decide(approvalId: string, approved: boolean, reason?: string): Promise<{ code?: string }>;
  cancel(runId: string): Promise<void>;
}

describe('an approval replayed onto a new run with the same id (hole 2)', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let approvals: Queue;
  let decisions: Queue;
  let client: AgentqClient;
  let api: RunningApi;
  let http: ApiCaller;
  let folder: string;
  let counterFile: string;

  const notes = async () => await readCounterNotes(counterFile);
  const recordOf = async (approvalId: string) =>
    await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId });

  /** The run's pending approvals once it is parked on them, or `finished` if it ended instead. */
  const parkedOrFinished = async (runId: string, count: number): Promise<ApprovalJob[] | 'finished'> =>
    await eventually(async () => {
      const state = await (await Job.fromId(queue, runId))?.getState();
      if (state === 'completed' || state === 'failed') return 'finished' as const;
      const pending = await listPendingApprovals(ctx, { runId });
      return pending.length === count && state === 'waiting-children' ? pending : undefined;
    });

  const parked = async (runId: string, count: number): Promise<ApprovalJob[]> => {
    const pending = await parkedOrFinished(runId, count);
    if (pending === 'finished') {
      const finished = await waitForJob(queue, runId);
      throw new Error(`run ${runId} finished without asking: ${JSON.stringify(finished.returnvalue)}`);
    }
    return pending;
  };

  const resultOf = async (runId: string): Promise<RunResult> => {
    const finished = await waitForJob(queue, runId);
    expect(finished.state).toBe('completed');
    return runResultSchema.parse(finished.returnvalue);
  };

  const approvalJobDone = async (approvalId: string) =>
    await eventually(async () => {
      const state = await (await Job.fromId(approvals, approvalId))?.getState();
      return state === 'completed' ? true : undefined;
    });

  const decisionJob = async (jobId: string, data: Record<string, unknown>): Promise<{ code?: string }> => {
    await decisions.add('decision', data, { jobId, attempts: 3 });
    const finished = await waitForJob(decisions, jobId);
    if (finished.state === 'completed') return {};
    // Refused once and never retried. A failed job keeps only the message, so the refusal is read
    // from the record: it exists, and what it holds is not this job's decision.
    expect(finished.attemptsMade).toBe(1);
    const record = await recordOf(String(data.approvalId));
    if (!record) return { code: 'NOT_FOUND' };
    expect(record.decision?.decidedBy).not.toBe(data.decidedBy);
    return { code: record.decision ? 'ALREADY_DECIDED' : 'FAILED' };
  };

  const paths: Record<'rest' | 'client' | 'queue', () => Path> = {
    rest: () => ({
      async enqueue(runId, spec) {
        const response = await http.call('POST', '/v1/runs', { body: { runId, spec } });
        expect(response.status).toBe(201);
      },
      async decide(approvalId, approved, reason) {
        const response = await http.call('POST', `/v1/approvals/${approvalId}/decision`, {
          body: { approved, ...(reason ? { reason } : {}) },
        });
        return response.status === 200 ? {} : { code: response.body.error.code };
      },
      async cancel(runId) {
        const response = await http.call('DELETE', `/v1/runs/${runId}`);
        expect(response.status).toBe(200);
      },
    }),
    client: () => ({
      async enqueue(runId, spec) {
        expect((await client.enqueueRun(spec, { runId })).created).toBe(true);
      },
      async decide(approvalId, approved, reason) {
        try {
          await client.decide({ approvalId, approved, reason, decidedBy: 'alice' });
          return {};
        } catch (error) {
          if (!AgentqError.isInstance(error)) throw error;
          return { code: error.code };
        }
      },
      async cancel(runId) {
        await client.cancelRun(runId);
      },
    }),
    queue: () => {
      let jobs = 0;
      return {
        async enqueue(runId, spec) {
          expect((await client.enqueueRun(spec, { runId })).created).toBe(true);
        },
        async decide(approvalId, approved, reason) {
          jobs += 1;
          return await decisionJob(`decision-${approvalId}-${jobs}`, {
            approvalId,
            approved,
            ...(reason ? { reason } : {}),
            decidedBy: `billing-service-${jobs}`,
          });
        },
        async cancel(runId) {
          await client.cancelRun(runId);
        },
      };
    },
  };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-replay-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }), alwaysAsk: ['counter_increment'] },
    });
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
    decisions = new Queue(QUEUE_NAMES.decisions, { connection: ctx.redis, prefix: ctx.prefix });
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    ({ api, http } = await startTestApi(ctx));
  });

  afterAll(async () => {
    await api?.close();
    await client?.close();
    await worker?.close();
    for (const each of [queue, approvals, decisions]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** Parks run `runId` on two calls, approves A only, cancels it: returns the ids of A and B. */
  async function approveACancel(path: Path, runId: string, tag: string) {
    await path.enqueue(runId, twoCalls(tag));
    const pending = await parked(runId, 2);
    const a = pending.find((each) => (each.input as { note: string }).note === `${tag}-A`) as ApprovalJob;
    const b = pending.find((each) => (each.input as { note: string }).note === `${tag}-B`) as ApprovalJob;
    expect(await path.decide(a.approvalId, true, reasonForA)).toEqual({});
    await approvalJobDone(a.approvalId);
    await path.cancel(runId);
    return { a, b };
  }

  for (const name of ['rest', 'client', 'queue'] as const) {
    it(`never runs a changed call under an approval of the cancelled run with the same id (${name})`, async () => {
      const path = paths[name]();
      const runId = `replay-${name}`;
      const { a, b } = await approveACancel(path, runId, name);
      // Cancel settled what nobody decided, and nothing can be decided for it any more.
      expect(await recordOf(b.approvalId)).toMatchObject({ outcome: 'no-decision' });

      await path.enqueue(runId, oneCall(`${name}-changed`));
      // The changed call asks a person again, under an approval of its own.
      const [fresh] = await parked(runId, 1);
      expect(fresh?.approvalId).not.toBe(a.approvalId);
      expect(fresh?.input).toEqual({ note: `${name}-changed` });
      expect(fresh?.toolCallId).toBe(a.toolCallId);
      // Replaying the old approval ids changes nothing.
      expect(await path.decide(a.approvalId, true)).toEqual({ code: 'ALREADY_DECIDED' });
      expect(await path.decide(b.approvalId, true)).toEqual({ code: 'ALREADY_DECIDED' });
      expect(await recordOf(b.approvalId)).toMatchObject({ outcome: 'no-decision', decision: { approved: false } });
      expect(await notes()).not.toContain(`${name}-changed`);

      expect(await path.decide(fresh?.approvalId as string, false, 'not this one')).toEqual({});
      const result = await resultOf(runId);
      const call = result.toolCalls.find((each) => each.toolCallId === a.toolCallId);
      expect(call).toMatchObject({ input: { note: `${name}-changed` }, approval: { approved: false } });
      expect(call?.approval?.reason).not.toContain(reasonForA);
      expect(await notes()).not.toContain(`${name}-changed`);
    });
  }

  it('denies, with the reason, a call that reuses the old incarnation through the queue', async () => {
    const runId = 'replay-same-incarnation';
    const { a } = await approveACancel(paths.client(), runId, 'raw');
    const old = await recordOf(a.approvalId);
    expect(old?.request.incarnation).toEqual(expect.any(String));
    // Someone with write access to the queue re-adds the run under the old incarnation: the approval
    // id matches A's again, but the record holds the arguments the person saw.
    const spec = { ...twoCalls('raw'), incarnation: old?.request.incarnation };
    spec.assistant.script = [
      { toolCalls: [{ toolName: counterTool, input: { note: 'raw-changed' } }] },
      { text: 'finished' },
    ];
    await enqueueRaw(queue, { runId, data: spec, attempts: 1 });
    const result = await resultOf(runId);
    expect(result.toolCalls[0]).toMatchObject({
      toolCallId: a.toolCallId,
      input: { note: 'raw-changed' },
      approval: { approvalId: a.approvalId, approved: false },
    });
    expect(result.toolCalls[0]?.approval?.reason).toMatch(/argument/);
    expect(await notes()).not.toContain('raw-changed');
  });

  it('refuses a decision after cancel, and the record says no-decision (REST)', async () => {
    const runId = 'cancelled-then-decided';
    await paths.rest().enqueue(runId, oneCall('cancelled'));
    const [pending] = await parked(runId, 1);
    await paths.rest().cancel(runId);
    const late = await http.call('POST', `/v1/approvals/${pending?.approvalId}/decision`, { body: { approved: true } });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('ALREADY_DECIDED');
    const record = await http.call('GET', `/v1/approvals/${pending?.approvalId}`);
    expect(record.body).toMatchObject({ outcome: 'no-decision', decision: { approved: false } });
    expect(await notes()).not.toContain('cancelled');
  });

  it('refuses a decision for a run removed without cancel, and settles it as no-decision', async () => {
    const runId = 'removed-then-decided';
    await paths.client().enqueue(runId, oneCall('removed'));
    const [pending] = await parked(runId, 1);
    // Removed the way Bull Board or a script would: the job goes, nothing else is told.
    await (await Job.fromId(queue, runId))?.remove({ removeChildren: true });
    const late = await paths.client().decide(pending?.approvalId as string, true);
    expect(late).toEqual({ code: 'ALREADY_DECIDED' });
    expect(await recordOf(pending?.approvalId as string)).toMatchObject({
      outcome: 'no-decision',
      decision: { approved: false },
    });
    expect(await listPendingApprovals(ctx, { runId })).toEqual([]);
    expect(await notes()).not.toContain('removed');
  });

  it('refuses a decision for a removed run that was enqueued again under its id meanwhile', async () => {
    const runId = 'removed-then-again';
    await paths.client().enqueue(runId, oneCall('first'));
    const [first] = await parked(runId, 1);
    await (await Job.fromId(queue, runId))?.remove({ removeChildren: true });
    await paths.client().enqueue(runId, oneCall('second'));
    // The earlier run's approval is no longer listed: no decision can land on it.
    const [second] = await parked(runId, 1);
    expect(second?.approvalId).not.toBe(first?.approvalId);
    expect(second?.input).toEqual({ note: 'second' });
    // The old approval names the run id, but the run under it now is another incarnation.
    expect(await paths.client().decide(first?.approvalId as string, true)).toEqual({ code: 'ALREADY_DECIDED' });
    expect(await recordOf(first?.approvalId as string)).toMatchObject({ outcome: 'no-decision' });
    expect(await paths.client().decide(second?.approvalId as string, false)).toEqual({});
    const result = await resultOf(runId);
    expect(result.toolCalls[0]).toMatchObject({ input: { note: 'second' }, approval: { approved: false } });
    expect(await notes()).not.toContain('first');
    expect(await notes()).not.toContain('second');
  });

  it('checks the call against the decision record, not the checkpoint: a tampered checkpoint is denied', async () => {
    const runId = 'tampered-checkpoint';
    await paths.client().enqueue(runId, oneCall('seen'));
    const [pending] = await parked(runId, 1);
    // Between the request and the decision, the checkpoint is rewritten to other arguments, with
    // a matching digest in its own copy of the pending approval.
    const store = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    const checkpoint = (await store.read(runId)) as RunCheckpoint;
    const tampered = { note: 'tampered' };
    const messages = checkpoint.messages.map((message) =>
      Array.isArray(message.content)
        ? {
            ...message,
            content: (message.content as Array<Record<string, unknown>>).map((part) =>
              part.type === 'tool-call' && part.toolCallId === pending?.toolCallId
                ? { ...part, input: tampered }
                : part,
            ),
          }
        : message,
    );
    const pendingApprovals = checkpoint.pendingApprovals.map((each) => ({ ...each, argsDigest: digestOf(tampered) }));
    await store.write({ ...checkpoint, messages, pendingApprovals });

    expect(await paths.client().decide(pending?.approvalId as string, true)).toEqual({});
    const result = await resultOf(runId);
    expect(result.toolCalls[0]).toMatchObject({ input: tampered, approval: { approved: false } });
    expect(result.toolCalls[0]?.approval?.reason).toMatch(/argument/);
    expect(await notes()).not.toContain('tampered');
    expect(await notes()).not.toContain('seen');
  });

  it('fails closed on an approval recorded before incarnations: denied with a reason, never run', async () => {
    const runId = 'legacy-record';
    await paths.client().enqueue(runId, oneCall('legacy'));
    const [pending] = await parked(runId, 1);
    // The record as a worker from before this change wrote it: no incarnation, no server id.
    const key = keyNames(ctx.prefix).decision(pending?.approvalId as string);
    const { incarnation: _incarnation, serverId: _serverId, ...legacy } = pending as ApprovalJob;
    await ctx.redis.hset(key, 'request', JSON.stringify(legacy));
    expect(await paths.client().decide(pending?.approvalId as string, true)).toEqual({});
    const result = await resultOf(runId);
    expect(result.toolCalls[0]).toMatchObject({ input: { note: 'legacy' }, approval: { approved: false } });
    expect(result.toolCalls[0]?.approval?.reason).toMatch(/ask again/);
    expect(await notes()).not.toContain('legacy');
  });

  it('still runs the call a person approved (the control)', async () => {
    const runId = 'honest-replay-control';
    await paths.rest().enqueue(runId, oneCall('honest'));
    const [pending] = await parked(runId, 1);
    expect(await paths.rest().decide(pending?.approvalId as string, true)).toEqual({});
    const result = await resultOf(runId);
    expect(result.toolCalls[0]).toMatchObject({ approval: { approved: true }, isError: false });
    expect(await notes()).toContain('honest');
  });
});
