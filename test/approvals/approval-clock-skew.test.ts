import { createApprovalProcessor } from '@agentq/agent-worker';
import { QUEUE_NAMES, silentLogger, withBullmqErrors, type ApprovalJob } from '@agentq/shared';
import { readApprovalRecord, redisTime, registerApprovalRequests } from '@agentq/store';
import { Job, Queue, Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { sweepDecidedApprovals } from '../../apps/agent-worker/src/approvals/sweep-decided-approvals.js';
import { decide } from '../../packages/client/src/approvals/index.js';
import { eventually } from '../helpers/eventually.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// A worker whose clock runs 15 minutes fast joins while an approval waits out a 10-minute window.
// BullMQ promotes delayed jobs by the clock of the worker that looks, so this one starts the
// approval job at once. Expiry is Redis's to judge: the job goes back to wait, the run is not
// denied, and a decision made in time (by a caller on the same fast clock) is taken and delivered.
describe('approvals on a worker whose clock runs fast', () => {
  const skewMs = 15 * 60_000;
  const realNow = Date.now.bind(Date);
  let ctx: TestContext;
  let approvals: Queue;
  let runs: Queue;
  let worker: Worker | undefined;

  beforeAll(() => {
    ctx = createTestContext();
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    for (const queue of [approvals, runs]) {
      await queue?.obliterate({ force: true }).catch(() => undefined);
      await queue?.close();
    }
    await ctx?.close();
  });

  /** A registered approval expiring in ten minutes by Redis time, and its delayed job. */
  async function parkedApproval(approvalId: string): Promise<ApprovalJob> {
    const now = await redisTime(ctx.redis);
    const request = {
      approvalId,
      runId: `run-${approvalId}`,
      toolCallId: `call-${approvalId}`,
      toolName: 'mcp__fx__counterIncrement',
      input: { note: approvalId },
      argsDigest: 'a',
      schemaDigest: 's',
      requestedAt: now,
      expiresAt: now + 600_000,
    } satisfies ApprovalJob;
    await registerApprovalRequests({ redis: ctx.redis, prefix: ctx.prefix, requests: [request] });
    // Its run, queued: the sweeper settles the approvals of a run that is gone whatever the time.
    await runs.add('run', {}, { jobId: request.runId, delay: 3_600_000 });
    // Added by a worker with a correct clock, as `addApprovalJob` does.
    await approvals.add('approval', request, { jobId: approvalId, delay: request.expiresAt - realNow(), attempts: 5 });
    return request;
  }

  /** From here on, this process's clock (and so BullMQ's in it) runs `skewMs` ahead. */
  function skewClock(): void {
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skewMs);
  }

  /** A worker on the skewed clock with the production wiring of the approval processor. */
  function startSkewedWorker(options: { maxEarlyStarts?: number } = {}): void {
    const processor = createApprovalProcessor({
      redis: ctx.redis,
      prefix: ctx.prefix,
      logger: silentLogger(),
      ...options,
    });
    worker = new Worker(
      QUEUE_NAMES.approvals,
      async (job: Job, token?: string) => await withBullmqErrors({ job, token }, async () => await processor(job)),
      { connection: ctx.redis, prefix: ctx.prefix },
    );
  }

  async function jobOf(approvalId: string): Promise<Job> {
    return (await Job.fromId(approvals, approvalId)) as Job;
  }

  /** Once the job has started `starts` times and come to rest (back in delayed, or finished). */
  async function settledAfterStarts(approvalId: string, starts: number): Promise<string> {
    let state = '';
    await eventually(async () => {
      const job = await jobOf(approvalId);
      state = await job.getState();
      return job.attemptsStarted >= starts && ['delayed', 'completed', 'failed'].includes(state);
    }, `approval job ${approvalId} to start ${starts} time(s) and come to rest`);
    return state;
  }

  it('neither denies the approval early nor refuses a decision in time', async () => {
    const request = await parkedApproval('skew-decide');
    skewClock();
    startSkewedWorker();

    expect(await settledAfterStarts(request.approvalId, 1)).toBe('delayed');
    const waiting = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: request.approvalId });
    expect(waiting).toMatchObject({ decision: null, outcome: null });

    const decision = await decide(
      { redis: ctx.redis, prefix: ctx.prefix },
      { approvalId: request.approvalId, approved: true, decidedBy: 'operator' },
    );
    expect(decision.approved).toBe(true);
    await eventually(
      async () => (await (await jobOf(request.approvalId)).getState()) === 'completed',
      'the decided approval job to complete',
    );
    expect((await jobOf(request.approvalId)).returnvalue).toMatchObject({
      approvalId: request.approvalId,
      approved: true,
      outcome: 'decision',
      decidedBy: 'operator',
    });
  });

  it('settles no-decision once the job has started early more often than allowed', async () => {
    const request = await parkedApproval('skew-bounded');
    skewClock();
    startSkewedWorker({ maxEarlyStarts: 1 });

    expect(await settledAfterStarts(request.approvalId, 1)).toBe('delayed');
    // Bull Board's "promote": one more early start, past the bound.
    await (await jobOf(request.approvalId)).promote();
    expect(await settledAfterStarts(request.approvalId, 2)).toBe('completed');
    expect((await jobOf(request.approvalId)).returnvalue).toMatchObject({ approved: false, outcome: 'no-decision' });
    const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: request.approvalId });
    expect(record?.outcome).toBe('no-decision');
  });

  it('is not expired early by a sweeper on the fast clock', async () => {
    const request = await parkedApproval('skew-sweep');
    skewClock();
    await sweepDecidedApprovals({
      redis: ctx.redis,
      prefix: ctx.prefix,
      approvalsQueue: approvals,
      logger: silentLogger(),
      graceMs: 0,
    });
    const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: request.approvalId });
    expect(record).toMatchObject({ decision: null, outcome: null });
  });
  it("leaves a decision that lands while the job starts early within the sweeper's reach", async () => {
    const request = await parkedApproval('skew-race');
    const processor = createApprovalProcessor({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    let decided = false;
    worker = new Worker(
      QUEUE_NAMES.approvals,
      async (job: Job, token?: string) =>
        await withBullmqErrors({ job, token }, async () => {
          try {
            return await processor(job);
          } catch (error) {
            // The person decides after the settle said "not yet" and before the job is back in
            // delayed, so the decision's promote finds the job active. The decider's clock runs a
            // minute fast.
            vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 60_000);
            await decide(
              { redis: ctx.redis, prefix: ctx.prefix },
              { approvalId: request.approvalId, approved: true, decidedBy: 'operator' },
            );
            vi.restoreAllMocks();
            decided = true;
            throw error;
          }
        }),
      { connection: ctx.redis, prefix: ctx.prefix },
    );
    // Started early (a promote by hand, as a fast-clock worker would).
    await (await jobOf(request.approvalId)).promote();
    expect(await settledAfterStarts(request.approvalId, 1)).toBe('delayed');
    expect(decided).toBe(true);
    // The decided approval is scored by Redis's clock, so the sweeper, which picks by Redis's
    // clock, delivers it now rather than when the decider's clock says.
    const promoted = await sweepDecidedApprovals({
      redis: ctx.redis,
      prefix: ctx.prefix,
      approvalsQueue: approvals,
      logger: silentLogger(),
      graceMs: 0,
    });
    expect(promoted).toBe(1);
    await eventually(
      async () => (await (await jobOf(request.approvalId)).getState()) === 'completed',
      'the decided approval job to complete',
    );
    expect((await jobOf(request.approvalId)).returnvalue).toMatchObject({ approved: true, outcome: 'decision' });
  });
});
