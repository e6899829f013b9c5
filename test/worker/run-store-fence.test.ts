import { RunStore } from '@agentq/agent-worker';
import { AgentqError, runCheckpointSchema, silentLogger } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe('RunStore fencing by the run lock', () => {
  let ctx: TestContext;
  let store: RunStore;
  const lockKey = () => `${ctx.prefix}:agent-runs:fenced:lock`;
  const checkpoint = (step: number) =>
    runCheckpointSchema.parse({
      runId: 'fenced',
      messages: [{ role: 'user', content: 'hi' }],
      allowedNames: [],
      inspectedNames: [],
      step,
      usage: {},
      catalogVersion: {},
      updatedAt: step,
    });

  beforeAll(() => {
    ctx = createTestContext();
    store = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('writes while the attempt holds the lock, and refuses once another worker has it', async () => {
    await ctx.redis.set(lockKey(), 'attempt-a', 'PX', 10_000);
    await store.write(checkpoint(1), { fence: { lockKey: lockKey(), token: 'attempt-a' } });
    await ctx.redis.set(lockKey(), 'attempt-b', 'PX', 10_000);
    const refused = await store
      .write(checkpoint(2), { fence: { lockKey: lockKey(), token: 'attempt-a' } })
      .catch((error: unknown) => error);
    expect(AgentqError.isInstance(refused) && refused.code).toBe('LOCK_LOST');
    expect((await store.read('fenced'))?.step).toBe(1);
  });

  it('claims a tool call once, and never for an attempt without the lock', async () => {
    await ctx.redis.set(lockKey(), 'attempt-b', 'PX', 10_000);
    const fence = { lockKey: lockKey(), token: 'attempt-b' };
    expect(await store.claimToolCall({ runId: 'fenced', toolCallId: 'c1', owner: 'b', fence })).toEqual({
      status: 'claimed',
    });
    expect(await store.claimToolCall({ runId: 'fenced', toolCallId: 'c1', owner: 'b2', fence })).toEqual({
      status: 'exists',
      recorded: { claimedBy: 'b', startedAt: expect.any(Number) },
    });
    expect(
      await store.claimToolCall({
        runId: 'fenced',
        toolCallId: 'c2',
        owner: 'a',
        fence: { lockKey: lockKey(), token: 'attempt-a' },
      }),
    ).toEqual({ status: 'lock-lost' });
    expect(await ctx.redis.hexists(`${keyNames(ctx.prefix).run('fenced')}:tool-results`, 'c2')).toBe(0);
  });

  it('never answers a claim or a replay with an entry an earlier incarnation of the run id left', async () => {
    const runId = 'reused-id';
    expect(await store.claimToolCall({ runId, toolCallId: 'c1', owner: 'old', incarnation: 'inc-old' })).toEqual({
      status: 'claimed',
    });
    await store.recordToolResult({
      runId,
      toolCallId: 'c1',
      result: { ok: true, output: 'what the earlier run saw', incarnation: 'inc-old' },
    });
    // The same incarnation (a retry) finds its own result.
    expect(
      await store.claimToolCall({ runId, toolCallId: 'c1', owner: 'retry', incarnation: 'inc-old' }),
    ).toMatchObject({
      status: 'exists',
      recorded: { ok: true, output: 'what the earlier run saw' },
    });
    expect((await store.recordedToolResults(runId, 'inc-old')).has('c1')).toBe(true);
    // A new run under the same id neither replays it nor is stopped by it: it claims afresh.
    expect((await store.recordedToolResults(runId, 'inc-new')).has('c1')).toBe(false);
    expect(await store.claimToolCall({ runId, toolCallId: 'c1', owner: 'new', incarnation: 'inc-new' })).toEqual({
      status: 'claimed',
    });
    expect(await store.claimToolCall({ runId, toolCallId: 'c1', owner: 'new2', incarnation: 'inc-new' })).toMatchObject(
      {
        status: 'exists',
        recorded: { claimedBy: 'new', incarnation: 'inc-new' },
      },
    );
  });
});
