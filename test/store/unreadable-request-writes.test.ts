import { AgentqError, type ApprovalJob, type ElicitationRequestRecord } from '@agentq/shared';
import {
  keyNames,
  recordDecision,
  registerApprovalRequests,
  registerElicitation,
  settleElicitation,
} from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// A decision or an answer on a record whose stored request cannot be read is refused before
// anything is written: the caller told it failed must find the record as it was, still pending,
// rather than holding a decision nobody delivers (the run would then wait for the whole timeout,
// and every later decision would be refused as ALREADY_DECIDED).
describe('a decision or answer on a record whose request cannot be read', () => {
  let ctx: TestContext;
  beforeAll(() => {
    ctx = createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const expiresAt = Date.now() + 600_000;

  function approval(approvalId: string): ApprovalJob {
    return {
      approvalId,
      runId: `run-${approvalId}`,
      toolCallId: 'call-1',
      toolName: 'mcp__fx__counterIncrement',
      input: {},
      argsDigest: 'a',
      schemaDigest: 's',
      requestedAt: expiresAt - 600_000,
      expiresAt,
    };
  }

  function elicitation(elicitationId: string): ElicitationRequestRecord {
    return {
      elicitationId,
      runId: `run-${elicitationId}`,
      incarnation: 'inc-1',
      toolCallId: 'call-1',
      toolName: 'mcp__fx__confirm',
      serverId: 'fx',
      argsDigest: 'a',
      digest: 'd',
      message: 'Go on?',
      requestedSchema: { type: 'object', properties: {} },
      requestedAt: expiresAt - 600_000,
      expiresAt,
    };
  }

  /** The record hash and whether the id is still in its pending set. */
  async function snapshot(recordKey: string, pendingKey: string, id: string) {
    return {
      record: await ctx.redis.hgetall(recordKey),
      pending: await ctx.redis.zscore(pendingKey, id),
    };
  }

  async function refusal(promise: Promise<unknown>): Promise<AgentqError> {
    const error = await promise.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!AgentqError.isInstance(error)) throw new Error(`expected an AgentqError, got ${String(error)}`);
    return error;
  }

  it('refuses the decision with RUN_STATE_CORRUPT and records nothing', async () => {
    const keys = keyNames(ctx.prefix);
    const approvalId = 'appr-unreadable';
    await registerApprovalRequests({ redis: ctx.redis, prefix: ctx.prefix, requests: [approval(approvalId)] });
    await ctx.redis.hset(keys.decision(approvalId), 'request', JSON.stringify({ approvalId: 5 }));
    const before = await snapshot(keys.decision(approvalId), keys.pendingApprovals, approvalId);
    expect(before.pending).not.toBeNull();

    const decide = () =>
      recordDecision({
        redis: ctx.redis,
        prefix: ctx.prefix,
        input: { approvalId, approved: true, decidedBy: 'ops', via: 'cli' },
      });
    const error = await refusal(decide());
    expect(await snapshot(keys.decision(approvalId), keys.pendingApprovals, approvalId)).toEqual(before);
    expect(error.code).toBe('RUN_STATE_CORRUPT');
    expect(error.field).toBe('approvalId');
    expect(error.message).toContain(keys.decision(approvalId));
    expect(error.message).toContain('nothing was recorded');

    // Asked again, the same refusal: not ALREADY_DECIDED on a decision nobody was told about.
    expect((await refusal(decide())).code).toBe('RUN_STATE_CORRUPT');
    expect(await snapshot(keys.decision(approvalId), keys.pendingApprovals, approvalId)).toEqual(before);
  });

  it('refuses a decision on a record key of another type with RUN_STATE_CORRUPT', async () => {
    const keys = keyNames(ctx.prefix);
    const approvalId = 'appr-wrong-type';
    await ctx.redis.set(keys.decision(approvalId), 'not a hash');
    const error = await refusal(
      recordDecision({
        redis: ctx.redis,
        prefix: ctx.prefix,
        input: { approvalId, approved: false, decidedBy: 'ops' },
      }),
    );
    expect(error.code).toBe('RUN_STATE_CORRUPT');
    expect(await ctx.redis.get(keys.decision(approvalId))).toBe('not a hash');
  });

  it('refuses the answer with RUN_STATE_CORRUPT and records nothing', async () => {
    const keys = keyNames(ctx.prefix);
    const elicitationId = 'elic-unreadable';
    await registerElicitation({ redis: ctx.redis, prefix: ctx.prefix, request: elicitation(elicitationId) });
    await ctx.redis.hset(keys.elicitation(elicitationId), 'request', '{"elicitationId":');
    const before = await snapshot(keys.elicitation(elicitationId), keys.pendingElicitations, elicitationId);
    expect(before.pending).not.toBeNull();

    const error = await refusal(
      settleElicitation({
        redis: ctx.redis,
        prefix: ctx.prefix,
        elicitationId,
        outcome: 'answer',
        response: { response: { action: 'decline' }, answeredBy: 'ops', answeredAt: Date.now(), via: 'rest' },
      }),
    );
    expect(await snapshot(keys.elicitation(elicitationId), keys.pendingElicitations, elicitationId)).toEqual(before);
    expect(error.code).toBe('RUN_STATE_CORRUPT');
    expect(error.field).toBe('elicitationId');
    expect(error.message).toContain(keys.elicitation(elicitationId));
  });

  it('settles the expiry of such an elicitation without reporting it as failed', async () => {
    const keys = keyNames(ctx.prefix);
    const elicitationId = 'elic-unreadable-expiry';
    await registerElicitation({ redis: ctx.redis, prefix: ctx.prefix, request: elicitation(elicitationId) });
    await ctx.redis.hset(keys.elicitation(elicitationId), 'request', '{"elicitationId":');
    const settled = await settleElicitation({
      redis: ctx.redis,
      prefix: ctx.prefix,
      elicitationId,
      outcome: 'expired',
      response: { response: { action: 'cancel' }, answeredBy: 'agentq:expired', answeredAt: Date.now() },
    });
    expect(settled).toBeNull();
    expect(await ctx.redis.hget(keys.elicitation(elicitationId), 'outcome')).toBe('expired');
    expect(await ctx.redis.zscore(keys.pendingElicitations, elicitationId)).toBeNull();
  });
});
