import { tool, type Tool, type ToolExecutionOptions, type ToolSet } from 'ai';
import { z } from 'zod';
import type { RunToolState } from '../exposition/run-tool-state.js';
import { dispatchToolCall } from './dispatch-tool-call.js';

/** What model-written code may do: call tools of this request, one at a time, by name. */
export interface ToolExecApi {
  callTool(name: string, params: unknown): Promise<unknown>;
}

/**
 * Runs model-written code. There is deliberately no default: the code must run in a real sandbox
 * with memory and time limits, never in this process with full Node privileges.
 */
export type ToolExecSandbox = (request: { code: string; api: ToolExecApi; signal?: AbortSignal }) => Promise<unknown>;

/** Options of {@link createToolExec}. */
export interface CreateToolExecOptions {
  /** The run's per-run tool set; the only tools code can reach. */
  tools: ToolSet;
  state: RunToolState;
  /** The sandbox to run code in. Without one, `tool_exec` refuses every call. */
  sandbox?: ToolExecSandbox;
}

/**
 * `tool_exec({ code })`: defined but never injected by `applyDeferExposition`. Code reaches tools
 * only through {@link ToolExecApi.callTool}, which applies the same checks as `tool_invoke`
 * (request membership, existence, approval gate, params) so that it can never reach an
 * approval-gated tool or one outside the request.
 */
export function createToolExec(options: CreateToolExecOptions): Tool {
  return tool({
    description: 'Run JavaScript that calls tools of this request through api.callTool(name, params).',
    inputSchema: z.object({ code: z.string().min(1) }),
    execute: async ({ code }, executionOptions: ToolExecutionOptions) => {
      if (!options.sandbox) {
        return { refused: true, code: 'EXEC_DISABLED', message: 'tool_exec is not enabled in this deployment.' };
      }
      let calls = 0;
      const api: ToolExecApi = {
        callTool: async (name, params) => {
          calls += 1;
          return dispatchToolCall({
            name,
            params,
            tools: options.tools,
            state: options.state,
            outer: { ...executionOptions, toolCallId: `${executionOptions.toolCallId}#${calls}` },
            requireInspection: false,
          });
        },
      };
      return options.sandbox({ code, api, signal: executionOptions.abortSignal });
    },
  });
}
