import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { definitionHash, QUEUE_NAMES, runIncarnationOf, type ElicitationRequestRecord } from '@agentq/shared';
import { keyNames, redisTime, registerElicitation, runStateKeys } from '@agentq/store';
import { Queue, Worker, type Job, type JobType } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

/**
 * Each read view shows a combination that was true at some instant, and the views agree with each
 * other. Each race is opened at its exact window by a hook on the BullMQ read the view makes, so the
 * outcome does not depend on the machine's speed.
 */
describe('read views while runs move', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  const queues: Queue[] = [];
  const workers: Worker[] = [];

  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await client.close();
    for (const worker of workers) await worker.close();
    for (const queue of queues) {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    await ctx.close();
  });

  it('listRuns lists a run taken by a worker while the page is read once', async () => {
    const queue = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    queues.push(queue);
    const worker = new Worker(QUEUE_NAMES.agentRuns, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
    workers.push(worker);
    const added = await queue.add('run', { input: { prompt: 'dup' } });

    // A worker takes the run right after the `waiting` list was read, before the `active` one is.
    const getJobs = Queue.prototype.getJobs;
    let taken!: () => void;
    const takenPromise = new Promise<void>((resolve) => (taken = resolve));
    vi.spyOn(Queue.prototype, 'getJobs').mockImplementation(async function (this: Queue, ...args) {
      const [types] = args as [JobType[]];
      if (types[0] === 'waiting') {
        const read = await getJobs.apply(this, args);
        await worker.getNextJob('token-dup');
        taken();
        return read;
      }
      await takenPromise;
      return await getJobs.apply(this, args);
    });

    const { runs, total } = await client.listRuns();
    const ids = runs.map((run) => run.runId);
    // One run, listed once (total says 1).
    expect(total).toBe(1);
    expect(ids.filter((id) => id === added.id)).toHaveLength(1);
  });

  it('listRuns({ state: active }) shows a run that completed while the page was read as completed', async () => {
    const queue = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    queues.push(queue);
    const worker = new Worker(QUEUE_NAMES.agentRuns, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
    workers.push(worker);
    await queue.add('run', { input: { prompt: 'filter' } });
    const job = (await worker.getNextJob('token-filter')) as Job;
    const getJob = Queue.prototype.getJob;
    let completed = false;
    vi.spyOn(Queue.prototype, 'getJob').mockImplementation(async function (this: Queue, id: string) {
      if (!completed && id === job.id) {
        completed = true;
        await job.moveToCompleted({ text: 'done', usage: { totalTokens: 7 } }, 'token-filter', false);
      }
      return await getJob.call(this, id);
    });
    const { runs } = await client.listRuns({ state: 'active' });
    const run = runs.find((each) => each.runId === job.id);
    expect(completed).toBe(true);
    // Never active with an end time and usage: either still active as read, or completed.
    if (run?.state === 'completed') expect(run).toMatchObject({ finishedAt: expect.any(Number), totalTokens: 7 });
    else expect(run).toMatchObject({ state: 'active', finishedAt: undefined });
  });

  it('listPendingElicitations leaves out a question past its expiry by Redis time, which no answer can land on', async () => {
    const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    queues.push(runs);
    const now = await redisTime(ctx.redis);
    const request: ElicitationRequestRecord = {
      elicitationId: 'elic-truth-1',
      runId: 'run-truth-1',
      incarnation: 'inc-1',
      toolCallId: 'call-1',
      toolName: 'mcp__deploy__deployService',
      serverId: 'deploy',
      argsDigest: 'a',
      digest: 'd',
      message: 'Which environment?',
      requestedSchema: { type: 'object', properties: {} },
      requestedAt: now - 120_000,
      expiresAt: now - 60_000,
    };
    await registerElicitation({ redis: ctx.redis, prefix: ctx.prefix, request });
    // Its run is still there, not finished (its expiry job has not run yet: a slow-clock worker, or none up).
    await runs.add('run', { incarnation: 'inc-1' }, { jobId: request.runId, delay: 3_600_000 });

    const answered = await client
      .answerElicitation({ elicitationId: request.elicitationId, response: { action: 'decline' } })
      .catch((error: unknown) => error);
    expect(answered).toMatchObject({ code: 'EXPIRED' });
    const pending = await client.listPendingElicitations();
    // Any answer is refused EXPIRED, so it is not pending (listPendingApprovals hides such approvals too).
    expect(pending.map((record) => record.request.elicitationId)).not.toContain(request.elicitationId);
  });
});

describe('getRun across a resume', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let runs: Queue;
  let approvals: Queue;
  let worker: Worker;

  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
    worker = new Worker(QUEUE_NAMES.agentRuns, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await client.close();
    await worker.close();
    for (const queue of [runs, approvals]) {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    await ctx.close();
  });

  it('a run parked on an approval that resumes between the state read and the checkpoint read is never waiting-input', async () => {
    const { runId } = await client.enqueueRun({ assistant: { model: 'scripted:demo' }, input: { prompt: 'park' } });
    const token = 'token-park';
    const job = (await worker.getNextJob(token)) as Job;
    expect(job.id).toBe(runId);
    const incarnation = runIncarnationOf(job);
    const approvalId = 'appr-truth-1';
    await approvals.add('approval', {}, { jobId: approvalId, parent: { id: runId, queue: job.queueQualifiedName } });
    const [checkpointKey] = runStateKeys(keyNames(ctx.prefix), runId);
    const checkpoint = (status: string, pending: unknown[]) =>
      JSON.stringify({
        runId,
        incarnation,
        messages: [],
        allowedNames: [],
        inspectedNames: [],
        step: 1,
        steps: [],
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        catalogVersion: {},
        pendingApprovals: pending,
        status,
        updatedAt: 1,
      });
    await ctx.redis.set(
      checkpointKey,
      checkpoint('waiting-approval', [
        { approvalId, toolCallId: 'c1', toolName: 'gated', argsDigest: 'd', schemaDigest: 'd' },
      ]),
    );
    expect(await job.moveToWaitingChildren(token)).toBe(true);
    expect(await runs.getJobState(runId)).toBe('waiting-children');

    const before = await client.getRun(runId);
    expect(before.state).toBe('waiting-approval');

    // The approval is decided and the run resumes right after getRun read the job's state: its
    // approval job completes, a worker takes the run and writes its checkpoint (nothing pending,
    // running) at once (resumeFromApprovals).
    const approvalWorker = new Worker(QUEUE_NAMES.approvals, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
    const getJob = Queue.prototype.getJob;
    let resumed = false;
    vi.spyOn(Queue.prototype, 'getJob').mockImplementation(async function (this: Queue, id: string) {
      const read = await getJob.call(this, id);
      if (!resumed && id === runId) {
        resumed = true;
        const child = (await approvalWorker.getNextJob('token-approval')) as Job;
        await child.moveToCompleted({ approvalId, approved: true }, 'token-approval', false);
        expect(await worker.getNextJob('token-resume')).toMatchObject({ id: runId });
        await ctx.redis.set(checkpointKey, checkpoint('running', []));
      }
      return read;
    });
    const during = await client.getRun(runId);
    await approvalWorker.close();
    expect(resumed).toBe(true);
    // It waited for an approval, then ran: never waiting on a question with none listed.
    expect({
      state: during.state,
      approvals: during.pendingApprovals.length,
      questions: during.pendingElicitations.length,
    }).toEqual({ state: 'active', approvals: 0, questions: 0 });
  });
});

describe('a decided run waiting for a worker', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let runs: Queue;
  let approvals: Queue;
  let worker: Worker;
  let approvalWorker: Worker;

  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
    worker = new Worker(QUEUE_NAMES.agentRuns, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
    approvalWorker = new Worker(QUEUE_NAMES.approvals, undefined, {
      connection: ctx.redis.duplicate(),
      prefix: ctx.prefix,
      autorun: false,
    });
  });
  afterAll(async () => {
    await client.close();
    await worker.close();
    await approvalWorker.close();
    for (const queue of [runs, approvals]) {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    await ctx.close();
  });

  it('getRun and listRuns agree on its state', async () => {
    const { runId } = await client.enqueueRun({ assistant: { model: 'scripted:demo' }, input: { prompt: 'decided' } });
    const job = (await worker.getNextJob('token-d')) as Job;
    const incarnation = runIncarnationOf(job);
    const approvalId = 'appr-truth-2';
    await approvals.add('approval', {}, { jobId: approvalId, parent: { id: runId, queue: job.queueQualifiedName } });
    const [checkpointKey] = runStateKeys(keyNames(ctx.prefix), runId);
    await ctx.redis.set(
      checkpointKey,
      JSON.stringify({
        runId,
        incarnation,
        messages: [],
        allowedNames: [],
        inspectedNames: [],
        step: 1,
        steps: [],
        toolCalls: [],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        catalogVersion: {},
        pendingApprovals: [{ approvalId, toolCallId: 'c1', toolName: 'gated', argsDigest: 'd', schemaDigest: 'd' }],
        status: 'waiting-approval',
        updatedAt: 1,
      }),
    );
    expect(await job.moveToWaitingChildren('token-d')).toBe(true);
    // The approval job delivers the decision: the run goes back to wait for a worker.
    const child = (await approvalWorker.getNextJob('token-a')) as Job;
    await child.moveToCompleted({ approvalId, approved: true, outcome: 'decision' }, 'token-a', false);
    expect(await runs.getJobState(runId)).toBe('waiting');

    const detail = await client.getRun(runId);
    const { runs: listed } = await client.listRuns();
    const row = listed.find((each) => each.runId === runId);
    const filtered = (await client.listRuns({ state: 'waiting-approval' })).runs.map((each) => each.runId);
    // Decided and queued for a worker: `waiting` in the detail and the list alike, nothing pending.
    expect({ detail: detail.state, row: row?.state, inFilter: filtered.includes(runId) }).toEqual({
      detail: 'waiting',
      row: 'waiting',
      inFilter: false,
    });
    expect(detail.pendingApprovals).toEqual([]);
  });
});

describe('servers list after an edit', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
  });
  afterAll(async () => {
    await client.close();
    await ctx.close();
  });

  it('listServers and getCatalog give no status of the old definition beside the state of the new one', async () => {
    const old = await client.putServer(
      {
        id: 'svc',
        transport: { type: 'streamable-http', url: 'http://127.0.0.1:17999/mcp', headers: {} },
        alwaysAsk: [],
        enabled: true,
      },
      { origin: 'operator' },
    );
    // A warmer listed 12 tools of the old definition, then failed on it.
    await ctx.redis.set(
      keyNames(ctx.prefix).status('svc'),
      JSON.stringify({
        state: 'error',
        error: 'old failure',
        lastAttemptAt: 1,
        lastSuccessAt: 1,
        toolCount: 12,
        failures: 1,
        definitionHash: definitionHash(old),
      }),
    );
    // The operator edits the server: no warmer has read the new definition yet.
    await client.putServer(
      { ...old, transport: { type: 'streamable-http', url: 'http://127.0.0.1:17998/mcp', headers: {} } },
      { origin: 'operator' },
    );
    const [server] = await client.listServers();
    const view = await client.getCatalog('svc');
    expect(server?.state).toBe('never-warmed');
    expect(view.state).toBe('never-warmed');
    // Not never-warmed beside 12 tools, a last success and the old error.
    expect(server?.status).toBeNull();
    expect(view.status).toBeNull();
  });
});
