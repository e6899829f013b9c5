import { AgentqError } from '@agentq/shared';
import { tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { limitToolCallsPerStep, TOOL_CALL_BUDGET_EXCEEDED } from './limit-tool-calls-per-step.js';

describe('limitToolCallsPerStep', () => {
  it('executes the first calls of a step up to the limit, refuses the rest unexecuted, and starts over each step', async () => {
    let executed = 0;
    const base: ToolSet = {
      act: tool({
        inputSchema: z.object({}),
        execute: async () => ++executed,
      }),
    };
    const limited = limitToolCallsPerStep(base, { maxCalls: 2 });
    const call = () =>
      (limited.tools.act?.execute as (input: unknown, options: unknown) => Promise<unknown>)(
        {},
        { toolCallId: 'x', messages: [] },
      );
    limited.startStep();
    const outcomes = await Promise.allSettled([call(), call(), call(), call()]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
    const refused = (outcomes[2] as PromiseRejectedResult).reason as unknown;
    expect(AgentqError.isInstance(refused) && refused.code).toBe(TOOL_CALL_BUDGET_EXCEEDED);
    expect(executed).toBe(2);
    limited.startStep();
    await expect(call()).resolves.toBe(3);
  });
});
