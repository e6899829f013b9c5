import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { AgentqError, QUEUE_NAMES, runIncarnationOf, silentLogger, type ApprovalJob } from '@agentq/shared';
import { keyNames, readApprovalRecord, recordDecision, registerApprovalRequests } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepDecidedApprovals } from '../../apps/agent-worker/src/approvals/sweep-decided-approvals.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// An approval whose run job is gone (removed from Bull Board, cleaned after it failed for good) has
// lost its approval job too: nothing settles it. The inbox must not list it, nor one past its
// expiry, and the sweeper settles both so that they leave the pending set, instead of filling
// the low end of its batch ahead of decisions waiting to be delivered.
describe('approvals nothing else will settle', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let runs: Queue;
  let approvals: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    // No worker: runs stay queued, approval jobs stay delayed, and only the sweeper called here acts.
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    for (const queue of [runs, approvals]) {
      await queue?.obliterate({ force: true }).catch(() => undefined);
      await queue?.close();
    }
    await client?.close();
    await ctx?.close();
  });

  /** A queued run and its incarnation. */
  async function liveRun(runId: string): Promise<string> {
    await client.enqueueRun({ assistant: { model: 'scripted:demo' }, input: { prompt: runId } }, { runId });
    return runIncarnationOf((await runs.getJob(runId)) as Job);
  }

  function request(options: { approvalId: string; runId: string; incarnation: string; expiresAt: number }) {
    return {
      ...options,
      toolCallId: `call-${options.approvalId}`,
      toolName: 'mcp__fx__counterIncrement',
      input: { note: options.approvalId },
      argsDigest: 'a',
      schemaDigest: 's',
      requestedAt: options.expiresAt - 60_000,
    } satisfies ApprovalJob;
  }

  async function register(requests: ApprovalJob[]): Promise<void> {
    await registerApprovalRequests({ redis: ctx.redis, prefix: ctx.prefix, requests });
  }

  const inPendingSet = async (approvalId: string) =>
    (await ctx.redis.zscore(keyNames(ctx.prefix).pendingApprovals, approvalId)) !== null;

  it('lists only approvals a decision can still land on', async () => {
    const now = Date.now();
    const incarnation = await liveRun('list-live');
    await register([
      request({ approvalId: 'list-open', runId: 'list-live', incarnation, expiresAt: now + 600_000 }),
      request({ approvalId: 'list-expired', runId: 'list-live', incarnation, expiresAt: now - 1_000 }),
      request({ approvalId: 'list-earlier', runId: 'list-live', incarnation: 'earlier-run', expiresAt: now + 600_000 }),
      request({ approvalId: 'list-removed', runId: 'list-removed-run', incarnation, expiresAt: now + 600_000 }),
    ]);
    const listed = (await client.listPendingApprovals()).map((approval) => approval.approvalId);
    expect(listed).toEqual(['list-open']);
    expect((await client.listPendingApprovals({ runId: 'list-removed-run' })).map((a) => a.approvalId)).toEqual([]);
    // What the listing leaves out is exactly what a decision is refused on.
    const refusal = async (approvalId: string) =>
      await client.decide({ approvalId, approved: true, decidedBy: 'operator' }).then(
        () => 'decided',
        (error: unknown) => (AgentqError.isInstance(error) ? error.code : 'other'),
      );
    expect(await refusal('list-expired')).toBe('EXPIRED');
    expect(await refusal('list-removed')).toBe('ALREADY_DECIDED');
    expect(await refusal('list-earlier')).toBe('ALREADY_DECIDED');
  });

  it("still settles a cancelled run's approvals as cancelled, though they leave the listing with its job", async () => {
    const incarnation = await liveRun('cancel-me');
    await register([
      request({ approvalId: 'cancel-open', runId: 'cancel-me', incarnation, expiresAt: Date.now() + 600_000 }),
    ]);
    await client.cancelRun('cancel-me');
    const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: 'cancel-open' });
    expect(record).toMatchObject({
      outcome: 'no-decision',
      decision: { decidedBy: 'cancel', reason: 'run cancelled' },
    });
    expect(await inPendingSet('cancel-open')).toBe(false);
  });

  it('settles stranded approvals so a lost promote is delivered on the next sweeps, not at expiry', async () => {
    const now = Date.now();
    const liveIncarnation = await liveRun('sweep-live');
    // Twelve approvals of a removed run, expired long ago: the low end of the pending set.
    const removed = Array.from({ length: 12 }, (_, index) =>
      request({
        approvalId: `removed-${String(index).padStart(2, '0')}`,
        runId: 'sweep-removed-run',
        incarnation: 'removed-run',
        expiresAt: now - 3_600_000 + index,
      }),
    );
    await register([
      ...removed,
      request({
        approvalId: 'live-expired',
        runId: 'sweep-live',
        incarnation: liveIncarnation,
        expiresAt: now - 60_000,
      }),
      request({ approvalId: 'live-open', runId: 'sweep-live', incarnation: liveIncarnation, expiresAt: now + 600_000 }),
      request({
        approvalId: 'live-decided',
        runId: 'sweep-live',
        incarnation: liveIncarnation,
        expiresAt: now + 600_000,
      }),
    ]);
    // Decided and recorded, but the promote of its delayed approval job was lost.
    await approvals.add('approval', {}, { jobId: 'live-decided', delay: 600_000 });
    await recordDecision({
      redis: ctx.redis,
      prefix: ctx.prefix,
      input: { approvalId: 'live-decided', approved: true, decidedBy: 'operator' },
      now: now - 30_000,
    });

    const sweep = async () =>
      await sweepDecidedApprovals({
        redis: ctx.redis,
        prefix: ctx.prefix,
        approvalsQueue: approvals,
        logger: silentLogger(),
        graceMs: 0,
        batchSize: 5,
      });
    // Three batches of five reach it (twelve removed, one expired, then the decision); without
    // settling, every batch would be the same five removed approvals, for good.
    const state = async () => await (await Job.fromId(approvals, 'live-decided'))?.getState();
    let promoted = 0;
    for (let sweeps = 0; sweeps < 4 && (await state()) === 'delayed'; sweeps += 1) promoted += await sweep();
    expect(promoted).toBe(1);
    expect(await state()).toBe('waiting');

    for (const { approvalId } of removed) {
      expect(await inPendingSet(approvalId)).toBe(false);
      const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId });
      expect(record?.outcome).toBe('no-decision');
      expect(record?.decision?.approved).toBe(false);
      // Settled records expire like every settled record; undecided ones had no time to live.
      expect(await ctx.redis.ttl(keyNames(ctx.prefix).decision(approvalId))).toBeGreaterThan(0);
    }
    const expired = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: 'live-expired' });
    expect(expired?.outcome).toBe('expired');
    expect(await inPendingSet('live-expired')).toBe(false);
    // An open approval of a live run is left alone.
    const open = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId: 'live-open' });
    expect(open?.decision).toBeNull();
    expect(await inPendingSet('live-open')).toBe(true);
  });
});
