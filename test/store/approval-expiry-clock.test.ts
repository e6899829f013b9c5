import { AgentqError, type ApprovalJob, type DecisionRecord } from '@agentq/shared';
import {
  keyNames,
  readApprovalRecord,
  recordDecision,
  redisTime,
  registerApprovalRequests,
  settleApproval,
} from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// The approval scripts judge expiry by Redis's clock (TIME), never by the time a caller passes:
// a caller whose clock is 15 minutes off must neither refuse a decision in time nor land one late,
// and a settle asked to wait for the expiry must not expire an approval before it.
describe('approval expiry by Redis time', () => {
  const skewMs = 15 * 60_000;
  let ctx: TestContext;

  beforeAll(() => {
    ctx = createTestContext();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  const store = () => ({ redis: ctx.redis, prefix: ctx.prefix });

  async function registered(approvalId: string, expiresAt: number): Promise<ApprovalJob> {
    const request = {
      approvalId,
      runId: `run-${approvalId}`,
      toolCallId: `call-${approvalId}`,
      toolName: 'mcp__fx__counterIncrement',
      input: { note: approvalId },
      argsDigest: 'a',
      schemaDigest: 's',
      requestedAt: expiresAt - 600_000,
      expiresAt,
    } satisfies ApprovalJob;
    await registerApprovalRequests({ ...store(), requests: [request] });
    return request;
  }

  function expiredFallback(decidedAt: number): { outcome: 'expired'; decision: DecisionRecord } {
    return {
      outcome: 'expired',
      decision: { approved: false, reason: 'expired', decidedBy: 'agentq:expired', decidedAt },
    };
  }

  const inPendingSet = async (approvalId: string) =>
    (await ctx.redis.zscore(keyNames(ctx.prefix).pendingApprovals, approvalId)) !== null;

  it('records a decision in time although the caller clock is past the expiry', async () => {
    const now = await redisTime(ctx.redis);
    await registered('fast-caller', now + 600_000);
    const { decision } = await recordDecision({
      ...store(),
      input: { approvalId: 'fast-caller', approved: true, decidedBy: 'operator' },
      now: now + skewMs,
    });
    expect(decision.approved).toBe(true);
    const record = await readApprovalRecord({ ...store(), approvalId: 'fast-caller' });
    expect(record?.outcome).toBe('decision');
  });

  it('refuses a late decision although the caller clock is before the expiry', async () => {
    const now = await redisTime(ctx.redis);
    await registered('slow-caller', now - 1_000);
    const refused = await recordDecision({
      ...store(),
      input: { approvalId: 'slow-caller', approved: true, decidedBy: 'operator' },
      now: now - skewMs,
    }).catch((error: unknown) => error);
    expect(AgentqError.isInstance(refused) && refused.code).toBe('EXPIRED');
    expect((await readApprovalRecord({ ...store(), approvalId: 'slow-caller' }))?.decision).toBeNull();
  });

  it('waits: an undecided approval before its expiry is left as it is, with the time left', async () => {
    const now = await redisTime(ctx.redis);
    await registered('early-settle', now + 600_000);
    const settled = await settleApproval({
      ...store(),
      approvalId: 'early-settle',
      fallback: expiredFallback(now + skewMs),
      untilExpiry: { slackMs: 250 },
    });
    expect(settled).toEqual({ notYetMs: expect.any(Number) as number });
    const left = (settled as { notYetMs: number }).notYetMs;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(600_000);
    const record = await readApprovalRecord({ ...store(), approvalId: 'early-settle' });
    expect(record).toMatchObject({ decision: null, outcome: null });
    expect(await inPendingSet('early-settle')).toBe(true);
    // And a decision still lands, then is what the settle returns.
    await recordDecision({ ...store(), input: { approvalId: 'early-settle', approved: true, decidedBy: 'operator' } });
    const delivered = await settleApproval({
      ...store(),
      approvalId: 'early-settle',
      fallback: expiredFallback(now),
      untilExpiry: {},
    });
    expect(delivered).toMatchObject({ outcome: 'decision', decision: { approved: true, decidedBy: 'operator' } });
    expect(await inPendingSet('early-settle')).toBe(false);
  });

  it('expires an undecided approval whose expiry has come by Redis time, whatever the caller clock', async () => {
    const now = await redisTime(ctx.redis);
    await registered('due-settle', now - 1_000);
    const settled = await settleApproval({
      ...store(),
      approvalId: 'due-settle',
      fallback: expiredFallback(now - skewMs),
      untilExpiry: {},
    });
    expect(settled).toMatchObject({ outcome: 'expired', decision: { approved: false, reason: 'expired' } });
    expect(await inPendingSet('due-settle')).toBe(false);
  });

  it('without untilExpiry, settles with the fallback at once, as before', async () => {
    const now = await redisTime(ctx.redis);
    await registered('forced-settle', now + 600_000);
    const settled = await settleApproval({
      ...store(),
      approvalId: 'forced-settle',
      fallback: { outcome: 'no-decision', decision: { approved: false, decidedBy: 'cancel', decidedAt: now } },
    });
    expect(settled).toMatchObject({ outcome: 'no-decision' });
  });
});
