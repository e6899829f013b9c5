import { tool, type Tool, type ToolExecutionOptions, type ToolSet } from 'ai';
import { z } from 'zod';
import { mayNeedApproval } from '../approval/is-approval-gated.js';
import type { RunToolState } from '../exposition/run-tool-state.js';
import { META_TOOL_NAMES } from '../wire-names/tool-names.js';
import { dispatchToolCall, isDispatchRefusal } from './dispatch-tool-call.js';
import { renderToolSignature } from './render-tool-signature.js';

/** What a sandbox is asked to run: model-written code and the tools it may call. */
export interface ToolExecRequest {
  /** The body of an async function; it may `await tools.<name>(params)` and `return` a JSON value. */
  code: string;
  /** The names the code sees under `tools`. */
  toolNames: readonly string[];
  /**
   * Runs one call of the code. The sandbox makes calls one at a time, in the order the code made
   * them: the nested call ids count them, and a script run again after a crash must meet the same
   * ids to replay its finished calls.
   */
  callTool(name: string, params: unknown): Promise<unknown>;
  signal?: AbortSignal;
}

/** What the code came to. Only `value` (size-capped by the sandbox) and `logs` reach the model. */
export type ToolExecOutcome =
  | { ok: true; value: unknown; logs: string[]; toolCalls: number }
  | { ok: false; code: string; message: string; logs: string[]; toolCalls: number };

/**
 * Runs model-written code. There is deliberately no default: the code must run in a real sandbox
 * with memory and time limits, never in this process with full Node privileges.
 */
export type ToolExecSandbox = (request: ToolExecRequest) => Promise<ToolExecOutcome>;

/** Options of {@link createToolExec}. */
export interface CreateToolExecOptions {
  /** The run's per-run tool set, already wrapped with its approval policy; the only tools code can reach. */
  tools: ToolSet;
  state: RunToolState;
  /** The sandbox to run code in. Without one, `tool_exec` refuses every call. */
  sandbox?: ToolExecSandbox;
  /** `tool_search` of this run, offered to code as `tools.tool_search` when tools are deferred. @default none */
  search?: Tool;
  /** Names whose signatures the description spells out: the inline tools. @default every allowed tool */
  described?: readonly string[];
}

/** Longest list of signatures the `tool_exec` description carries; the rest are found by search. */
export const MAX_EXEC_SIGNATURE_CHARS = 8_000;

const execInput = z.object({
  code: z
    .string()
    .min(1)
    .describe('The body of an async JavaScript function: await tools.<name>(params), then return a JSON value.'),
});

/**
 * The model-facing description: how to write a script, then the signatures of the tools it may
 * call (gated tools excluded: code cannot run them), as many as fit in
 * {@link MAX_EXEC_SIGNATURE_CHARS}.
 */
function describeExec(options: CreateToolExecOptions): string {
  const lines = [
    'Run JavaScript that calls tools, and get back only what it returns. Use it to call many tools in ' +
      'one step, to loop over results, and to filter large results before you read them.',
    'The code is the body of an async function: call a tool with `await tools.<name>(params)` (its ' +
      'result is the value), keep what matters, and `return` it as JSON. console.log lines come back too.',
    'There is no require, import, network, filesystem or timer. Tools that need approval cannot be ' +
      'called from code: call them directly.',
  ];
  if (options.search) {
    lines.push(
      `Tools not listed below are found with \`await tools.${META_TOOL_NAMES.search}({ query })\` in the ` +
        `code, or with ${META_TOOL_NAMES.search} and ${META_TOOL_NAMES.inspect} first.`,
    );
  }
  const signatures: string[] = [];
  let size = 0;
  let left = 0;
  for (const name of options.described ?? options.state.allowedNames) {
    const perRun = Object.hasOwn(options.tools, name) ? options.tools[name] : undefined;
    if (!perRun || mayNeedApproval(perRun)) continue;
    const signature = renderToolSignature(`tools.${name}`, perRun).replace(/^function tools\./m, 'async function ');
    if (size + signature.length > MAX_EXEC_SIGNATURE_CHARS) {
      left += 1;
      continue;
    }
    size += signature.length;
    signatures.push(signature);
  }
  if (signatures.length > 0) lines.push('Tools callable from code:', ...signatures);
  if (left > 0) lines.push(`${left} more tools are callable; read their signatures with ${META_TOOL_NAMES.inspect}.`);
  return lines.join('\n');
}

/**
 * `tool_exec({ code })`: runs model-written code in the sandbox it is given. The code reaches
 * tools only through {@link ToolExecRequest.callTool}, which is {@link dispatchToolCall}, the path
 * of `tool_invoke`: the request's allow-list, existence, the approval gate (a gated tool is refused
 * and the model told to call it directly), and parameter validation; the nested call then runs the
 * run's own wrapped tool, so the journal, masking, metrics and traces see it as they see a direct
 * call. A refused call rejects in the code with the reason, so that a script that does not catch it
 * ends with that reason for the model.
 */
export function createToolExec(options: CreateToolExecOptions): Tool {
  return tool({
    description: describeExec(options),
    inputSchema: execInput,
    execute: async ({ code }, executionOptions: ToolExecutionOptions) => {
      if (!options.sandbox) {
        return { ok: false, code: 'EXEC_DISABLED', message: 'tool_exec is not enabled in this deployment.' };
      }
      let calls = 0;
      const toolNames = [...options.state.allowedNames];
      if (options.search) toolNames.push(META_TOOL_NAMES.search);
      const outcome = await options.sandbox({
        code,
        toolNames,
        signal: executionOptions.abortSignal,
        callTool: async (name, params) => {
          calls += 1;
          // Deterministic per script call order, so a script run again replays from the journal.
          const outer = { ...executionOptions, toolCallId: `${executionOptions.toolCallId}#${calls}` };
          if (name === META_TOOL_NAMES.search && options.search?.execute) {
            return await options.search.execute(params as never, {
              ...outer,
              toolCallId: `${outer.toolCallId}::${name}`,
              messages: outer.messages ?? [],
            });
          }
          const result = await dispatchToolCall({
            name,
            params,
            tools: options.tools,
            state: options.state,
            outer,
            requireInspection: false,
          });
          if (isDispatchRefusal(result)) {
            const signature = result.signature ? `\n${result.signature}` : '';
            throw new Error(`${result.code}: ${result.message}${signature}`);
          }
          return result;
        },
      });
      const logs = outcome.logs.length > 0 ? { logs: outcome.logs } : {};
      return outcome.ok
        ? { ok: true, result: outcome.value, toolCalls: outcome.toolCalls, ...logs }
        : { ok: false, code: outcome.code, message: outcome.message, toolCalls: outcome.toolCalls, ...logs };
    },
  });
}
