import type { Tool, ToolSet } from 'ai';
import type { RecordedToolResult, RunStore } from './run-store.js';

const wrapped = new WeakSet<object>();

/** Options of {@link recordToolExecutions}. */
export interface RecordToolExecutionsOptions {
  runId: string;
  store: RunStore;
  /**
   * The run's recorded results as read when this attempt started. Only the process holding the
   * run's lock executes its tools, so this snapshot plus what this attempt records is complete.
   */
  recorded: Map<string, RecordedToolResult>;
  /** Called before a tool really executes (not on replays), for progress and crash hooks. */
  onExecute?: (toolName: string, toolCallId: string) => void | Promise<void>;
}

/**
 * Wraps every tool's `execute` so that each execution is recorded by tool call id, and a call
 * whose result is already recorded returns that result instead of executing again. A run re-run
 * after a crash re-derives the same tool call ids from its checkpoint (and a deterministic model),
 * so a completed step's side effects never happen twice. Failures are recorded too: a re-run
 * reports the same tool error instead of trying the call again.
 */
export function recordToolExecutions(tools: ToolSet, options: RecordToolExecutionsOptions): ToolSet {
  const out: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    out[name] = wrapTool(name, tool, options);
  }
  return out;
}

function wrapTool(name: string, tool: Tool, options: RecordToolExecutionsOptions): Tool {
  const execute = tool.execute;
  if (!execute || wrapped.has(tool)) return tool;
  const replaying: Tool = {
    ...tool,
    execute: async (input: unknown, executionOptions) => {
      const toolCallId = executionOptions.toolCallId;
      const recorded = options.recorded.get(toolCallId);
      if (recorded) {
        if (recorded.ok) return recorded.output;
        throw new Error(recorded.error);
      }
      await options.onExecute?.(name, toolCallId);
      let output: unknown;
      try {
        output = await (execute as (input: unknown, options: unknown) => unknown)(input, executionOptions);
      } catch (error) {
        // An aborted call did not finish; it must run again when the run resumes.
        if (!executionOptions.abortSignal?.aborted) {
          const message = error instanceof Error ? error.message : String(error);
          await options.store.recordToolResult({
            runId: options.runId,
            toolCallId,
            result: { ok: false, error: message },
          });
        }
        throw error;
      }
      await options.store.recordToolResult({
        runId: options.runId,
        toolCallId,
        result: { ok: true, output: toJson(output) },
      });
      return output;
    },
  } as Tool;
  wrapped.add(replaying);
  return replaying;
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}
