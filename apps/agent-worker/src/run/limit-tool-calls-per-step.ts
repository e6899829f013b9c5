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

/**
 * Wraps the tools the model calls directly so that one step executes at most `maxCalls` of its
 * calls (`AGENTQ_MAX_TOOL_CALLS_PER_STEP`): a model that asks for a thousand fetches in one step
 * makes `maxCalls` requests, and every call past them gets a `TOOL_CALL_BUDGET_EXCEEDED` tool
 * error that names the limit. A refused call never reaches the tool: no claim, no journal entry,
 * no request, no MCP call.
 *
 * Calls count in the order the SDK starts them, which is the order the model listed them, so a
 * run resumed from its checkpoint refuses the same calls again. Only the model's own calls count:
 * the one call a `tool_invoke` makes runs on the unwrapped tool set and is that call's work.
 */
export function limitToolCallsPerStep(tools: ToolSet, options: { maxCalls: number }): ToolCallsPerStep {
  let started = 0;
  const out: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (!execute) {
      out[name] = tool;
      continue;
    }
    out[name] = {
      ...tool,
      // Async, so that a refusal is a rejected call like any other tool failure.
      execute: async (input: unknown, executionOptions: unknown) => {
        started += 1;
        if (started > options.maxCalls) {
          throw new AgentqError({
            code: TOOL_CALL_BUDGET_EXCEEDED,
            message: `Not executed: one step may make at most ${options.maxCalls} tool calls (AGENTQ_MAX_TOOL_CALLS_PER_STEP), and this was call ${started}. Make fewer calls per step.`,
          });
        }
        return await (execute as (input: unknown, options: unknown) => unknown)(input, executionOptions);
      },
    } as Tool;
  }
  return {
    tools: out,
    startStep: () => {
      started = 0;
    },
  };
}
