import { MCP_ERROR_CODES, MESSAGE_BUDGET_FACTOR, McpConnectError, type MessageByteLimit } from '@agentq/mcp-connect';

/**
 * Fixed room one tool call's message has besides the text budget: the images a result may show the
 * model (half a MiB decoded by default, a third more as base64) and the JSON around every part.
 */
export const MESSAGE_HEADROOM_BYTES = 1_048_576;

/**
 * The cap on one message an MCP server sends the worker (a `tools/call` answer as JSON, one event
 * of an event stream, or one stdio line): {@link MESSAGE_BUDGET_FACTOR} times
 * `AGENTQ_TOOL_RESULT_MAX_BYTES` plus {@link MESSAGE_HEADROOM_BYTES}, as the warmer derives its
 * list cap. A result within it is read whole and cut to the result budget afterwards; past it the
 * read stops with `MCP_RESULT_TOO_LARGE` and the connection closes, so a server answering with
 * hundreds of megabytes is refused while it is read, never buffered whole.
 */
export function toolCallMessageLimit(toolResultMaxBytes: number): MessageByteLimit {
  const maxBytes = MESSAGE_BUDGET_FACTOR * toolResultMaxBytes + MESSAGE_HEADROOM_BYTES;
  return {
    maxBytes,
    tooLarge: () =>
      new McpConnectError({
        code: MCP_ERROR_CODES.resultTooLarge,
        message: `the server's answer runs past ${maxBytes} bytes (${MESSAGE_BUDGET_FACTOR} × AGENTQ_TOOL_RESULT_MAX_BYTES + ${MESSAGE_HEADROOM_BYTES}); reading stopped there and the connection was closed`,
        connectionBroken: true,
      }),
  };
}
