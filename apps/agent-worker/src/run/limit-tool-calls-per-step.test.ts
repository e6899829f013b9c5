import { AgentqError } from '@agentq/shared';
import { tool, type Tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { limitToolCallsPerStep, stepCallBudget, TOOL_CALL_BUDGET_EXCEEDED } from './limit-tool-calls-per-step.js';

describe('limitToolCallsPerStep', () => {
  it('executes the first calls of a step up to the limit, refuses the rest unexecuted, and starts over each step', async () => {
    let executed = 0;
    const base: ToolSet = {
      act: tool({
        inputSchema: z.object({}),
        execute: async () => ++executed,
      }),
    };
    const tools = limitToolCallsPerStep(base);
    const context = {};
    const limited = stepCallBudget(context, { maxCalls: 2 });
    let ids = 0;
    const call = (toolCallId = `call-${++ids}`) =>
      (tools.act?.execute as (input: unknown, options: unknown) => Promise<unknown>)(
        {},
        { toolCallId, messages: [], experimental_context: context },
      );
    limited.startStep();
    const outcomes = await Promise.allSettled([call(), call(), call(), call()]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
    const refused = (outcomes[2] as PromiseRejectedResult).reason as unknown;
    expect(AgentqError.isInstance(refused) && refused.code).toBe(TOOL_CALL_BUDGET_EXCEEDED);
    expect(executed).toBe(2);
    limited.startStep();
    await expect(call()).resolves.toBe(3);
    // Calls that repeat one id do not execute past the budget either.
    limited.startStep();
    const repeated = await Promise.allSettled([call('same'), call('same'), call('same')]);
    expect(repeated.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  });

  it("counts a step's calls in list order: calls of a gated tool past the budget ask no approval and are refused", async () => {
    let executed = 0;
    const base: ToolSet = {
      gated: tool({ inputSchema: z.object({}), needsApproval: true, execute: async () => ++executed }),
      open: tool({ inputSchema: z.object({}), execute: async () => ++executed }),
    };
    const tools = limitToolCallsPerStep(base);
    let context = {};
    const limited = stepCallBudget(context, { maxCalls: 2 });
    const gated = tools.gated as Required<Pick<Tool, 'onInputAvailable' | 'needsApproval' | 'execute'>>;
    const open = tools.open as Required<Pick<Tool, 'onInputAvailable' | 'execute'>>;
    const options = (toolCallId: string) => ({ toolCallId, messages: [], experimental_context: context });
    limited.startStep();
    // What the SDK does for one step: every valid call is shown in list order, then the gated ones
    // are asked about approval, then the rest execute.
    await open.onInputAvailable({ input: {}, ...options('a'), abortSignal: undefined });
    for (const id of ['b', 'c', 'd'])
      await gated.onInputAvailable({ input: {}, ...options(id), abortSignal: undefined });
    const asked = [];
    for (const id of ['b', 'c', 'd'])
      asked.push(
        await (gated.needsApproval as (input: unknown, options: unknown) => Promise<boolean>)({}, options(id)),
      );
    expect(asked).toEqual([true, false, false]);
    await expect(open.execute({}, options('a'))).resolves.toBe(1);
    for (const id of ['c', 'd']) {
      const refused = await Promise.resolve(gated.execute({}, options(id))).catch((error: unknown) => error);
      expect(AgentqError.isInstance(refused) && refused.code).toBe(TOOL_CALL_BUDGET_EXCEEDED);
    }
    expect(executed).toBe(1);
    // A resumed run: the approved call is asked again and executes before the next step starts.
    context = {};
    stepCallBudget(context, { maxCalls: 2 });
    const again = limitToolCallsPerStep(base).gated as typeof gated;
    await expect(
      (again.needsApproval as (input: unknown, options: unknown) => Promise<boolean>)({}, options('b')),
    ).resolves.toBe(true);
    await expect(again.execute({}, options('b'))).resolves.toBe(2);
  });

  it('keeps the counts of two runs sharing the wrappers apart, and refuses every call that carries no budget', async () => {
    let executed = 0;
    const base: ToolSet = {
      act: tool({ inputSchema: z.object({}), execute: async () => ++executed }),
      gated: tool({ inputSchema: z.object({}), needsApproval: true, execute: async () => ++executed }),
    };
    const first = limitToolCallsPerStep(base);
    const second = limitToolCallsPerStep(base);
    // One wrapper per tool object for every run.
    expect(second.act).toBe(first.act);
    expect(second.gated).toBe(first.gated);
    const [one, two] = [{}, {}];
    stepCallBudget(one, { maxCalls: 1 }).startStep();
    stepCallBudget(two, { maxCalls: 1 }).startStep();
    const act = first.act?.execute as (input: unknown, options: unknown) => Promise<unknown>;
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => (AgentqError.isInstance(error) ? error.code : error),
      );
    await expect(act({}, { toolCallId: 'a', messages: [], experimental_context: one })).resolves.toBe(1);
    // The other run's step still has its one call; the first run's is spent.
    await expect(act({}, { toolCallId: 'a', messages: [], experimental_context: two })).resolves.toBe(2);
    await expect(refusal(act({}, { toolCallId: 'b', messages: [], experimental_context: one }))).resolves.toBe(
      TOOL_CALL_BUDGET_EXCEEDED,
    );
    // No context, or one no budget was given: neither executes nor asks for approval.
    const needsApproval = first.gated?.needsApproval as (input: unknown, options: unknown) => Promise<boolean>;
    for (const context of [undefined, {}, 'one']) {
      await expect(refusal(act({}, { toolCallId: 'c', messages: [], experimental_context: context }))).resolves.toBe(
        'TOOL_NOT_EXECUTABLE',
      );
      await expect(
        refusal(needsApproval({}, { toolCallId: 'c', messages: [], experimental_context: context })),
      ).resolves.toBe('TOOL_NOT_EXECUTABLE');
    }
    expect(executed).toBe(2);
  });
});
