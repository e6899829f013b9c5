import { createAgentqClient, type AgentqClient } from '@agentq/client';
import {
  AgentqError,
  QUEUE_NAMES,
  runIncarnationOf,
  silentLogger,
  type ApprovalJob,
  type Logger,
} from '@agentq/shared';
import {
  inspectApprovalRecords,
  keyNames,
  readApprovalRecord,
  recordDecision,
  registerApprovalRequests,
  registerElicitation,
  setAsideUnreadablePending,
  type UnreadableProblem,
} from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepDecidedApprovals } from '../../apps/agent-worker/src/approvals/sweep-decided-approvals.js';
import { sweepUnreadableElicitations } from '../../apps/agent-worker/src/elicitations/sweep-unreadable-elicitations.js';
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

  /** Decided and recorded, but the promote of its delayed approval job was lost. */
  async function decidedButNotPromoted(approvalId: string, decidedAt: number): Promise<void> {
    await approvals.add('approval', {}, { jobId: approvalId, delay: 600_000 });
    await recordDecision({
      redis: ctx.redis,
      prefix: ctx.prefix,
      input: { approvalId, approved: true, decidedBy: 'operator' },
      now: decidedAt,
    });
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
    await decidedButNotPromoted('live-decided', now - 30_000);

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

  it('takes decided approvals of a run removed after the decision out of the pending set, decision kept', async () => {
    const now = Date.now();
    const goneIncarnation = await liveRun('decided-then-removed');
    const liveIncarnation = await liveRun('decided-live');
    // Eight approvals decided long ago, whose run (and with it their approval job) was then removed
    // from Bull Board: nothing will deliver them, and their decision time puts them at the low end.
    const decidedGone = Array.from({ length: 8 }, (_, index) =>
      request({
        approvalId: `decided-gone-${index}`,
        runId: 'decided-then-removed',
        incarnation: goneIncarnation,
        expiresAt: now + 600_000,
      }),
    );
    await register([
      ...decidedGone,
      request({
        approvalId: 'decided-live',
        runId: 'decided-live',
        incarnation: liveIncarnation,
        expiresAt: now + 600_000,
      }),
    ]);
    for (const [index, { approvalId }] of decidedGone.entries()) {
      await recordDecision({
        redis: ctx.redis,
        prefix: ctx.prefix,
        input: { approvalId, approved: true, decidedBy: 'operator' },
        now: now - 3_600_000 + index,
      });
    }
    await (await runs.getJob('decided-then-removed'))?.remove();
    await decidedButNotPromoted('decided-live', now - 30_000);

    const state = async () => await (await Job.fromId(approvals, 'decided-live'))?.getState();
    let promoted = 0;
    for (let sweeps = 0; sweeps < 3 && (await state()) === 'delayed'; sweeps += 1) {
      promoted += await sweepDecidedApprovals({
        redis: ctx.redis,
        prefix: ctx.prefix,
        approvalsQueue: approvals,
        logger: silentLogger(),
        graceMs: 0,
        batchSize: 5,
      });
    }
    expect(promoted).toBe(1);
    expect(await state()).toBe('waiting');
    for (const { approvalId } of decidedGone) {
      expect(await inPendingSet(approvalId)).toBe(false);
      const record = await readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId });
      expect(record?.outcome).toBe('decision');
      expect(record?.decision).toMatchObject({ approved: true, decidedBy: 'operator' });
    }
  });

  // Ids in a pending set whose record is gone or damaged (a key deleted or overwritten by hand, a
  // lost write) would sit at the low end for good, read and skipped by every sweep: 500 of them fill
  // every batch ahead of the decisions waiting to be delivered. The sweepers take them out of the
  // set (keeping a damaged record for inspection), and no listing fails or hides the rest because
  // of them.
  describe('pending ids whose record cannot be read', () => {
    const keys = () => keyNames(ctx.prefix);

    function loggedErrors() {
      const errors: Array<Record<string, unknown>> = [];
      const ignore = () => undefined;
      const logger: Logger = {
        trace: ignore,
        debug: ignore,
        info: ignore,
        warn: ignore,
        error: (context: unknown) => void errors.push(context as Record<string, unknown>),
        child: () => logger,
      };
      return { logger, errors };
    }

    /**
     * 600 ids with no record, and one damaged record of each kind, at the low end of `pendingKey`,
     * damaged ones first. Returns the ids by problem.
     */
    async function pollute(options: { pendingKey: string; recordKey: (id: string) => string; idPrefix: string }) {
      const base = Date.now() - 7_200_000;
      const damaged: Record<Exclude<UnreadableProblem, 'missing'>, string> = {
        'wrong-type': `${options.idPrefix}-wrong-type`,
        'no-request': `${options.idPrefix}-no-request`,
        'invalid-request': `${options.idPrefix}-not-json`,
      };
      const schemaInvalid = `${options.idPrefix}-bad-schema`;
      await ctx.redis.set(options.recordKey(damaged['wrong-type']), 'not a hash');
      await ctx.redis.hset(options.recordKey(damaged['no-request']), 'expiresAt', String(base));
      await ctx.redis.hset(options.recordKey(damaged['invalid-request']), 'request', '{"truncated":');
      await ctx.redis.hset(options.recordKey(schemaInvalid), 'request', JSON.stringify({ note: 'no fields' }));
      const corrupt = [...Object.values(damaged), schemaInvalid];
      const missing = Array.from({ length: 600 }, (_, index) => `${options.idPrefix}-ghost-${index}`);
      const entries = [...corrupt, ...missing].flatMap((id, index) => [String(base + index), id]);
      await ctx.redis.zadd(options.pendingKey, ...entries);
      return { corrupt, missing };
    }

    async function pendingMembers(pendingKey: string): Promise<Set<string>> {
      return new Set(await ctx.redis.zrange(pendingKey, 0, -1));
    }

    it('delivers a decision behind 600 missing and 4 damaged approval records, and clears them', async () => {
      const now = Date.now();
      const { corrupt, missing } = await pollute({
        pendingKey: keys().pendingApprovals,
        recordKey: (id) => keys().decision(id),
        idPrefix: 'appr',
      });
      const incarnation = await liveRun('unreadable-live');
      await registerApprovalRequests({
        redis: ctx.redis,
        prefix: ctx.prefix,
        requests: [
          request({ approvalId: 'appr-open', runId: 'unreadable-live', incarnation, expiresAt: now + 600_000 }),
          request({
            approvalId: 'appr-decided',
            runId: 'unreadable-live',
            incarnation,
            expiresAt: now + 600_000,
          }),
        ],
      });
      await decidedButNotPromoted('appr-decided', now - 30_000);

      // The inbox neither fails on them nor loses the open approval behind them.
      expect(
        (await client.listPendingApprovals({ runId: 'unreadable-live' })).map((approval) => approval.approvalId),
      ).toEqual(['appr-open']);

      const { logger, errors } = loggedErrors();
      const state = async () => await (await Job.fromId(approvals, 'appr-decided'))?.getState();
      let promoted = 0;
      for (let sweeps = 0; sweeps < 3 && (await state()) === 'delayed'; sweeps += 1) {
        promoted += await sweepDecidedApprovals({
          redis: ctx.redis,
          prefix: ctx.prefix,
          approvalsQueue: approvals,
          logger,
          graceMs: 0,
        });
      }
      expect(promoted).toBe(1);
      expect(await state()).toBe('waiting');

      const pending = await pendingMembers(keys().pendingApprovals);
      expect([...corrupt, ...missing].filter((id) => pending.has(id))).toEqual([]);
      expect(pending.has('appr-open')).toBe(true);
      // Damaged records stay for inspection, as they were; each is logged once, by id and problem.
      for (const id of corrupt) expect(await ctx.redis.exists(keys().decision(id))).toBe(1);
      expect(await ctx.redis.type(keys().decision('appr-wrong-type'))).toBe('string');
      expect(errors.map((entry) => [entry.approvalId, entry.problem]).sort()).toEqual(
        [
          ['appr-bad-schema', 'invalid-request'],
          ['appr-no-request', 'no-request'],
          ['appr-not-json', 'invalid-request'],
          ['appr-wrong-type', 'wrong-type'],
        ].sort(),
      );
    });

    it('keeps an id whose record was written after it was found unreadable', async () => {
      const now = Date.now();
      const store = { redis: ctx.redis, prefix: ctx.prefix };
      const incarnation = await liveRun('race-live');
      const registered = request({
        approvalId: 'race-registered',
        runId: 'race-live',
        incarnation,
        expiresAt: now + 600_000,
      });
      const repaired = request({
        approvalId: 'race-repaired',
        runId: 'race-live',
        incarnation,
        expiresAt: now + 600_000,
      });
      const ids = [registered.approvalId, repaired.approvalId, 'race-still-missing', 'race-still-damaged'];
      await ctx.redis.zadd(keys().pendingApprovals, ...ids.flatMap((id) => [String(now), id]));
      for (const id of [repaired.approvalId, 'race-still-damaged'])
        await ctx.redis.hset(keys().decision(id), 'request', '{"truncated":');
      const { unreadable } = await inspectApprovalRecords({ ...store, approvalIds: ids });
      expect(unreadable.map((entry) => [entry.id, entry.problem])).toEqual([
        ['race-registered', 'missing'],
        ['race-repaired', 'invalid-request'],
        ['race-still-missing', 'missing'],
        ['race-still-damaged', 'invalid-request'],
      ]);
      // Written between the read and the removal.
      await registerApprovalRequests({ ...store, requests: [registered] });
      await ctx.redis.hset(keys().decision(repaired.approvalId), 'request', JSON.stringify(repaired));

      const setAside = await setAsideUnreadablePending({ ...store, records: 'approvals', unreadable });
      expect(setAside.map((entry) => entry.id)).toEqual(['race-still-missing', 'race-still-damaged']);
      const pending = await pendingMembers(keys().pendingApprovals);
      expect(ids.filter((id) => pending.has(id))).toEqual(['race-registered', 'race-repaired']);
      expect((await readApprovalRecord({ ...store, approvalId: 'race-repaired' }))?.request).toEqual(repaired);
    });

    it('keeps in place a request a newer version wrote, with fields this one does not know', async () => {
      const store = { redis: ctx.redis, prefix: ctx.prefix };
      const incarnation = await liveRun('newer-writer');
      const newer = request({
        approvalId: 'newer-request',
        runId: 'newer-writer',
        incarnation,
        expiresAt: Date.now() + 600_000,
      });
      await registerApprovalRequests({ ...store, requests: [newer] });
      await ctx.redis.hset(
        keys().decision(newer.approvalId),
        'request',
        JSON.stringify({ ...newer, addedLater: { risk: 'high' } }),
      );
      const { records, unreadable } = await inspectApprovalRecords({ ...store, approvalIds: [newer.approvalId] });
      expect(records).toEqual([]);
      expect(unreadable).toEqual([]);
      await sweepDecidedApprovals({
        ...store,
        approvalsQueue: approvals,
        logger: silentLogger(),
        graceMs: -700_000,
        batchSize: 1_000,
      });
      expect(await inPendingSet(newer.approvalId)).toBe(true);
    });

    it('lists an elicitation behind 600 missing and 4 damaged records, and the sweep clears them', async () => {
      const { corrupt, missing } = await pollute({
        pendingKey: keys().pendingElicitations,
        recordKey: (id) => keys().elicitation(id),
        idPrefix: 'elic',
      });
      const incarnation = await liveRun('asks-live');
      await registerElicitation({
        redis: ctx.redis,
        prefix: ctx.prefix,
        request: {
          elicitationId: 'elic-real',
          runId: 'asks-live',
          incarnation,
          toolCallId: 'call-elic-real',
          toolName: 'mcp__deploy__deployService',
          serverId: 'deploy',
          argsDigest: 'a',
          digest: 'd',
          message: 'Which region?',
          requestedSchema: { type: 'object', properties: {} },
          requestedAt: Date.now(),
          expiresAt: Date.now() + 600_000,
        },
      });

      const listed = async () => (await client.listPendingElicitations()).map((record) => record.request.elicitationId);
      expect(await listed()).toEqual(['elic-real']);

      const { logger, errors } = loggedErrors();
      let setAside = 0;
      for (let sweeps = 0; sweeps < 2; sweeps += 1) {
        setAside += await sweepUnreadableElicitations({ redis: ctx.redis, prefix: ctx.prefix, logger });
      }
      expect(setAside).toBe(corrupt.length + missing.length);
      expect([...(await pendingMembers(keys().pendingElicitations))]).toEqual(['elic-real']);
      for (const id of corrupt) expect(await ctx.redis.exists(keys().elicitation(id))).toBe(1);
      expect(errors.map((entry) => entry.elicitationId).sort()).toEqual([...corrupt].sort());
      expect(await listed()).toEqual(['elic-real']);
    });
  });
});
