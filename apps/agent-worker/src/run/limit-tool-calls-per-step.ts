import { AgentqError } from '@agentq/shared';
import type { Tool, ToolSet } from 'ai';

/** Code of the tool error a call past the per-step budget gets. */
export const TOOL_CALL_BUDGET_EXCEEDED = 'TOOL_CALL_BUDGET_EXCEEDED';

/** The tools a model step may call, each step at most `maxCalls` times in all. */
export interface ToolCallsPerStep {
  tools: ToolSet;
  /** Starts a new step's count; call it before each model step (`prepareStep`). */
  startStep(): void;
}

type Execute = (input: unknown, options: { toolCallId: string }) => unknown;
type NeedsApproval = (input: unknown, options: { toolCallId: string }) => boolean | PromiseLike<boolean>;

/**
 * Wraps the tools the model calls directly so that one step spends at most `maxCalls` of its
 * calls (`AGENTQ_MAX_TOOL_CALLS_PER_STEP`) on executions and approval requests together: a model
 * that asks for a thousand fetches, or a thousand calls of a gated tool, in one step makes
 * `maxCalls` requests or asks for `maxCalls` approvals, and every call past them gets a
 * `TOOL_CALL_BUDGET_EXCEEDED` tool error that names the limit. A refused call never reaches the
 * tool and never asks a person: no approval record or job, no claim, no journal entry, no request.
 *
 * Each call gets its place in the step the first time the SDK shows it: `onInputAvailable`, which
 * the SDK calls for every valid call in the order the model listed them before it asks any
 * `needsApproval`; then `needsApproval`; then `execute`. A call past the budget answers "no
 * approval needed", so the SDK executes it at once, and `execute` refuses it. Counting in list
 * order means a gated call and an ungated one share the budget by position, and a run resumed from
 * its checkpoint refuses the same calls again. The approved calls a resumed run executes before
 * its first new step are counted the same way (the SDK asks `needsApproval` again for each), then
 * `startStep` starts the next step afresh.
 *
 * Executions are also counted on their own, so calls that repeat one id cannot execute past the
 * budget either. Only the model's own calls count: the one call a `tool_invoke` makes runs on the
 * unwrapped tool set and is that call's work.
 */
export function limitToolCallsPerStep(tools: ToolSet, options: { maxCalls: number }): ToolCallsPerStep {
  const places = new Map<string, number>();
  let executions = 0;
  const placeOf = (toolCallId: string): number => {
    let place = places.get(toolCallId);
    if (place === undefined) {
      place = places.size + 1;
      places.set(toolCallId, place);
    }
    return place;
  };
  const refusal = (place: number) =>
    new AgentqError({
      code: TOOL_CALL_BUDGET_EXCEEDED,
      message: `Not executed: one step may make at most ${options.maxCalls} tool calls (AGENTQ_MAX_TOOL_CALLS_PER_STEP), and this was call ${place}. Make fewer calls per step.`,
    });

  const out: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as Execute | undefined;
    if (!execute) {
      out[name] = tool;
      continue;
    }
    const onInputAvailable = tool.onInputAvailable;
    const needsApproval = tool.needsApproval;
    out[name] = {
      ...tool,
      onInputAvailable: async (available: Parameters<NonNullable<Tool['onInputAvailable']>>[0]) => {
        placeOf(available.toolCallId);
        await onInputAvailable?.(available);
      },
      ...(needsApproval === undefined || needsApproval === false
        ? {}
        : {
            needsApproval: async (input: unknown, approvalOptions: { toolCallId: string }) => {
              if (placeOf(approvalOptions.toolCallId) > options.maxCalls) return false;
              return typeof needsApproval === 'function'
                ? await (needsApproval as NeedsApproval)(input, approvalOptions)
                : needsApproval;
            },
          }),
      // Async, so that a refusal is a rejected call like any other tool failure.
      execute: async (input: unknown, executionOptions: { toolCallId: string }) => {
        const place = placeOf(executionOptions.toolCallId);
        if (place > options.maxCalls) throw refusal(place);
        executions += 1;
        if (executions > options.maxCalls) throw refusal(executions);
        return await execute(input, executionOptions);
      },
    } as Tool;
  }
  return {
    tools: out,
    startStep: () => {
      places.clear();
      executions = 0;
    },
  };
}
