import { createSecretValueSet } from '@agentq/shared';
import { readElicitation } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitationScope } from '../../apps/agent-worker/src/elicitations/elicitation-scope.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe('a question an MCP server puts during a call', () => {
  let ctx: TestContext;
  beforeAll(() => {
    ctx = createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  it('is stored with the process secrets masked out of its text and its requested schema', async () => {
    const secret = 'sk-live-elicited-0123456789';
    const scope = new ElicitationScope(
      {
        redis: ctx.redis,
        prefix: ctx.prefix,
        shardIndex: undefined,
        runId: 'run-masked',
        incarnation: 'inc-1',
        timeoutMs: 60_000,
        secrets: createSecretValueSet([secret]),
      },
      { toolName: 'mcp__svc__deploy', toolCallId: 'call-1', input: { target: 'prod' } },
    );
    const answer = await scope.ask('svc', {
      message: `Deploy with token ${secret}?`,
      requestedSchema: {
        type: 'object',
        properties: { token: { type: 'string', title: `Token (${secret})`, default: secret } },
      },
    });
    expect(answer).toEqual({ action: 'cancel' });
    const parked = scope.parked;
    expect(parked).toBeDefined();
    const record = await readElicitation({
      redis: ctx.redis,
      prefix: ctx.prefix,
      elicitationId: parked?.elicitationId as string,
    });
    expect(record?.request.message).toMatch(/^Deploy with token .+\?$/);
    const stored = JSON.stringify(record?.request);
    expect(stored).not.toContain(secret);
    const keys = await ctx.redis.keys(`${ctx.prefix}*`);
    for (const key of keys) {
      const type = await ctx.redis.type(key);
      const text =
        type === 'hash'
          ? JSON.stringify(await ctx.redis.hgetall(key))
          : type === 'string'
            ? await ctx.redis.get(key)
            : '';
      expect(text ?? '').not.toContain(secret);
    }
  });
});
