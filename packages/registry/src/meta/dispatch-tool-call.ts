import { withSpan } from '@agentq/shared';
import { type ModelMessage, type Tool, type ToolExecutionOptions, type ToolSet } from 'ai';
import { validateToolInput } from '../schema/validate-tool-input.js';
import { isApprovalGated } from '../approval/is-approval-gated.js';
import { markInspected, type RunToolState } from '../exposition/run-tool-state.js';
import { renderToolSignature } from './render-tool-signature.js';

/** Why an indirect call was refused. */
export type DispatchRefusalCode =
  | 'TOOL_NOT_IN_REQUEST'
  | 'TOOL_NOT_FOUND'
  | 'TOOL_NOT_EXECUTABLE'
  | 'TOOL_NEEDS_APPROVAL'
  | 'TOOL_NOT_INSPECTED'
  | 'INVALID_PARAMS';

/** A refusal, returned to the model as the meta tool's result. */
export interface DispatchRefusal {
  refused: true;
  code: DispatchRefusalCode;
  message: string;
  /** The tool's JSDoc stub, when seeing it helps the model retry. */
  signature?: string;
}

/** Options of {@link dispatchToolCall}. */
export interface DispatchToolCallOptions {
  name: string;
  params: unknown;
  /** The run's full per-run tool set, already wrapped with the run's approval policy. */
  tools: ToolSet;
  state: RunToolState;
  /** The outer call (`tool_invoke`, `tool_exec`); its id prefixes the nested one. */
  outer: Pick<ToolExecutionOptions, 'toolCallId' | 'messages' | 'abortSignal' | 'experimental_context'>;
  /** Refuse once when the model has not seen the signature yet. @default true */
  requireInspection?: boolean;
}

function refusal(code: DispatchRefusalCode, message: string, signature?: string): DispatchRefusal {
  return signature === undefined ? { refused: true, code, message } : { refused: true, code, message, signature };
}

/** Whether a meta tool result is a refusal. */
export function isDispatchRefusal(value: unknown): value is DispatchRefusal {
  return typeof value === 'object' && value !== null && (value as { refused?: unknown }).refused === true;
}

async function lastValue(output: unknown): Promise<unknown> {
  if (output && typeof output === 'object' && Symbol.asyncIterator in output) {
    let last: unknown;
    for await (const value of output as AsyncIterable<unknown>) last = value;
    return last;
  }
  return await output;
}

/**
 * Runs one tool by name on behalf of a meta tool, checking in this order: the name is in this
 * request; the tool exists in the per-run set; it can execute; it is not approval-gated (a gated
 * tool is never run indirectly, since that would skip the approval step); its signature was seen
 * (refused once, then recorded); its params validate. Tools are resolved from the per-run set only,
 * never from the registry, so nothing outside this run's approval wrapping is reachable.
 */
export async function dispatchToolCall(options: DispatchToolCallOptions): Promise<unknown> {
  const { name, tools, state } = options;
  if (!state.allowedNames.includes(name)) {
    return refusal('TOOL_NOT_IN_REQUEST', `Tool ${name} is not available in this request.`);
  }
  const tool: Tool | undefined = Object.hasOwn(tools, name) ? tools[name] : undefined;
  if (!tool) return refusal('TOOL_NOT_FOUND', `Tool ${name} was not found.`);
  if (typeof tool.execute !== 'function') {
    return refusal('TOOL_NOT_EXECUTABLE', `Tool ${name} cannot be executed here.`);
  }
  const nestedCallId = `${options.outer.toolCallId}::${name}`;
  const messages: ModelMessage[] = options.outer.messages ?? [];
  if (await isApprovalGated(tool, { toolCallId: nestedCallId, messages, input: options.params })) {
    return refusal(
      'TOOL_NEEDS_APPROVAL',
      `Tool ${name} needs approval and cannot be run through a meta tool. Call ${name} directly.`,
    );
  }
  if ((options.requireInspection ?? true) && !state.inspectedNames.includes(name)) {
    markInspected(state, name);
    return refusal(
      'TOOL_NOT_INSPECTED',
      `Read the signature of ${name} first. It is below; call again with matching params.`,
      renderToolSignature(name, tool),
    );
  }
  const validated = await validateToolInput(tool.inputSchema, options.params ?? {});
  if (!validated.success) {
    return refusal(
      'INVALID_PARAMS',
      `The params do not match ${name}: ${validated.error.message}`,
      renderToolSignature(name, tool),
    );
  }
  const execute = tool.execute;
  // The nested call gets a tool call span of its own, named and labelled like the AI SDK's span of
  // a direct call, under the outer call's span (the active one here).
  return await withSpan(
    'ai.toolCall',
    {
      attributes: {
        'operation.name': 'ai.toolCall',
        'ai.operationId': 'ai.toolCall',
        'ai.toolCall.name': name,
        'ai.toolCall.id': nestedCallId,
      },
    },
    async () =>
      await lastValue(
        execute(validated.value as never, {
          toolCallId: nestedCallId,
          messages,
          abortSignal: options.outer.abortSignal,
          experimental_context: options.outer.experimental_context,
        }),
      ),
  );
}
