import { AgentqError, QUEUE_NAMES, type ApprovalJob, type ElicitationRequestRecord } from '@agentq/shared';
import {
  keyNames,
  recordDecision,
  registerApprovalRequests,
  registerElicitation,
  settleElicitation,
} from '@agentq/store';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

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

// A decision or an answer on a record whose stored request cannot be read is refused before
// anything is written: the caller told it failed must find the record as it was, still pending,
// rather than holding a decision nobody delivers (the run would then wait for the whole timeout,
// and every later decision would be refused as ALREADY_DECIDED).
describe('a decision or answer on a record whose request cannot be read', () => {
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

// The decision or answer only lands on the request its caller read and checked: the run it names
// (and its incarnation) came from that text. A request rewritten between that read and the write,
// or one written by a newer version that this one cannot check, is refused with CONFLICT (which a
// queue job retries) and nothing is written.
describe('a decision or answer on a request that changed or is from a newer version', () => {
  /** What a test needs of one kind of record: how to register it and how to write to it. */
  interface Target {
    /** Names the write in test titles: `a decision`, `an answer`. */
    write: string;
    /** The field of the error, and the one the write records. */
    field: string;
    written: string;
    /** What the refusal of a changed request says. */
    changed: string;
    recordKey: (id: string) => string;
    pendingKey: () => string;
    /** Registers a pending record that a write can land on; returns its request. */
    register: (id: string) => Promise<ApprovalJob | ElicitationRequestRecord>;
    /** Writes on `redis`; returns the request it answers. */
    land: (redis: Redis, id: string) => Promise<ApprovalJob | ElicitationRequestRecord | null>;
  }

  const targets: Target[] = [
    {
      write: 'a decision',
      field: 'approvalId',
      written: 'decision',
      changed: 'changed while it was being decided',
      recordKey: (id) => keyNames(ctx.prefix).decision(id),
      pendingKey: () => keyNames(ctx.prefix).pendingApprovals,
      async register(id) {
        await registerApprovalRequests({ redis: ctx.redis, prefix: ctx.prefix, requests: [approval(id)] });
        return approval(id);
      },
      async land(redis, approvalId) {
        const input = { approvalId, approved: true, decidedBy: 'ops', via: 'cli' as const };
        return (await recordDecision({ redis, prefix: ctx.prefix, input })).request;
      },
    },
    {
      write: 'an answer',
      field: 'elicitationId',
      written: 'response',
      changed: 'changed while it was being answered',
      recordKey: (id) => keyNames(ctx.prefix).elicitation(id),
      pendingKey: () => keyNames(ctx.prefix).pendingElicitations,
      async register(id) {
        // The run's job record is there: an answer only lands while its run is.
        const request = elicitation(id);
        const runJobKey = keyNames(ctx.prefix).queueJob(QUEUE_NAMES.agentRuns, request.runId);
        await ctx.redis.hset(runJobKey, 'data', JSON.stringify({ incarnation: request.incarnation }));
        await registerElicitation({ redis: ctx.redis, prefix: ctx.prefix, request });
        return request;
      },
      land: (redis, elicitationId) =>
        settleElicitation({
          redis,
          prefix: ctx.prefix,
          elicitationId,
          outcome: 'answer',
          response: { response: { action: 'accept', content: {} }, answeredBy: 'ops', answeredAt: Date.now() },
        }),
    },
  ];

  /**
   * The suite's connection, except that the first read of `recordKey`'s request answers what was
   * stored and then rewrites it to `rewritten`: another writer between the pre-read and the write
   * script. `between` is the record as the script then finds it.
   */
  function rewriteAfterFirstRead(target: Target, id: string, rewritten: string) {
    const recordKey = target.recordKey(id);
    const race: { between?: Awaited<ReturnType<typeof snapshot>> } = {};
    const redis = new Proxy(ctx.redis, {
      get(connection, property) {
        if (property === 'hget') {
          return async (key: string, field: string) => {
            const text = await connection.hget(key, field);
            if (key === recordKey && field === 'request' && !race.between) {
              await connection.hset(recordKey, 'request', rewritten);
              race.between = await snapshot(recordKey, target.pendingKey(), id);
            }
            return text;
          };
        }
        const value: unknown = Reflect.get(connection, property, connection);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(connection) : value;
      },
    }) as Redis;
    return { redis, race };
  }

  describe.each(targets)('$write', (target) => {
    it(`refuses ${target.write} whose request was rewritten after it was read, with CONFLICT`, async () => {
      const id = `${target.field}-changed`;
      const request = await target.register(id);
      const original = await ctx.redis.hget(target.recordKey(id), 'request');
      const rewritten = JSON.stringify({ ...request, runId: 'run-other' });
      const { redis, race } = rewriteAfterFirstRead(target, id, rewritten);

      const error = await refusal(target.land(redis, id));
      expect(error.code).toBe('CONFLICT');
      expect(error.field).toBe(target.field);
      expect(error.message).toContain(target.changed);
      expect(race.between?.record.request).toBe(rewritten);
      expect(race.between?.pending).toEqual(expect.any(String));
      expect(await snapshot(target.recordKey(id), target.pendingKey(), id)).toEqual(race.between);
      expect(await ctx.redis.hget(target.recordKey(id), target.written)).toBeNull();

      // The same write on the request as it was read lands: the refusal was about the change.
      await ctx.redis.hset(target.recordKey(id), 'request', original!);
      expect(await target.land(ctx.redis, id)).toEqual(request);
      expect(await ctx.redis.hget(target.recordKey(id), target.written)).not.toBeNull();
    });

    it(`refuses ${target.write} on a request written by a newer version with CONFLICT and records nothing`, async () => {
      const id = `${target.field}-newer`;
      const request = await target.register(id);
      const original = await ctx.redis.hget(target.recordKey(id), 'request');
      await ctx.redis.hset(target.recordKey(id), 'request', JSON.stringify({ ...request, priority: 'high' }));
      const before = await snapshot(target.recordKey(id), target.pendingKey(), id);
      expect(before.pending).toEqual(expect.any(String));

      const error = await refusal(target.land(ctx.redis, id));
      expect(error.code).toBe('CONFLICT');
      expect(error.field).toBe(target.field);
      expect(error.message).toContain('newer version');
      expect(await snapshot(target.recordKey(id), target.pendingKey(), id)).toEqual(before);

      await ctx.redis.hset(target.recordKey(id), 'request', original!);
      expect(await target.land(ctx.redis, id)).toEqual(request);
      expect(await ctx.redis.hget(target.recordKey(id), target.written)).not.toBeNull();
    });
  });
});
