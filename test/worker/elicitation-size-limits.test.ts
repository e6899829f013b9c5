import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ELICITATION_LIMITS, ElicitationScope } from '../../apps/agent-worker/src/elicitations/elicitation-scope.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe('a question an MCP server puts during a call, past what a person can read', () => {
  let ctx: TestContext;
  beforeAll(() => {
    ctx = createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  function scopeFor(toolCallId: string) {
    return new ElicitationScope(
      {
        redis: ctx.redis,
        prefix: ctx.prefix,
        shardIndex: undefined,
        runId: 'run-big',
        incarnation: 'inc-1',
        timeoutMs: 60_000,
      },
      { toolName: 'mcp__svc__deploy', toolCallId, input: { target: 'prod' } },
    );
  }

  const field = { type: 'string', title: 'Environment' };
  const oversized = [
    [
      'a long message',
      {
        message: 'x'.repeat(ELICITATION_LIMITS.messageChars + 1),
        requestedSchema: { type: 'object', properties: { env: field } },
      },
    ],
    [
      'too many fields',
      {
        message: 'Fill these in',
        requestedSchema: {
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: ELICITATION_LIMITS.fields + 1 }, (_, i) => [`f${i}`, field]),
          ),
        },
      },
    ],
    [
      'a huge schema',
      {
        message: 'Pick one',
        requestedSchema: {
          type: 'object',
          properties: { env: { type: 'string', enum: Array.from({ length: 5_000 }, (_, i) => `environment-${i}`) } },
        },
      },
    ],
  ] as const;

  it.each(oversized)('is declined with %s, and nothing is stored', async (_, request) => {
    const scope = scopeFor(`call-${_.replace(/\W/g, '-')}`);
    expect(await scope.ask('svc', request)).toEqual({ action: 'decline' });
    expect(scope.parked).toBeUndefined();
    expect(await ctx.redis.keys(`${ctx.prefix}*`)).toEqual([]);
  });

  it('a question at the limits still parks the run for a person', async () => {
    const scope = scopeFor('call-at-limit');
    const answer = await scope.ask('svc', {
      message: 'x'.repeat(ELICITATION_LIMITS.messageChars),
      requestedSchema: { type: 'object', properties: { env: field } },
    });
    expect(answer).toEqual({ action: 'cancel' });
    expect(scope.parked?.elicitationId).toMatch(/^elic-/);
  });
});
