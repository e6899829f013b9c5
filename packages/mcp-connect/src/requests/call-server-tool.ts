import { AgentqError, maskSecretsDeep, maskServerError } from '@agentq/shared';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { closeReasonOf } from '../connect/connect-mcp-server.js';
import { classifySdkError, messageOf } from '../errors/describe-sdk-error.js';
import { McpConnectError } from '../errors/mcp-connect-error.js';
import { MCP_ERROR_CODES } from '../errors/mcp-error-codes.js';
import { withRequestSignal } from './with-request-signal.js';

/** The result of an MCP `tools/call`, normalized to the current protocol's shape. */
export interface McpToolCallResult {
  content: Array<Record<string, unknown>>;
  isError?: boolean;
  structuredContent?: unknown;
}

/** Options of {@link callServerTool}. */
export interface CallServerToolOptions {
  client: Client;
  serverId: string;
  toolName: string;
  input: unknown;
  /** The definition's `timeouts.callMs`. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Masked out of the error message. @default [] */
  secretValues?: readonly string[];
}

/**
 * Calls one tool within `timeoutMs`. A tool that fails on its own terms comes back as a result
 * with `isError: true`, not as a throw. Throws {@link McpConnectError}:
 * - `MCP_CALL_TIMEOUT` when the timer fired (`connectionBroken`: the answer may still come, on a
 *   connection nobody should reuse);
 * - `MCP_TRANSPORT_CLOSED` when the server went away (`connectionBroken`);
 * - `MCP_CALL_FAILED` for a JSON-RPC error answer (connection fine) or any other transport
 *   failure (`connectionBroken`), and for a call aborted by `signal` (connection fine);
 * - the connection's own code when it closed itself under the call, such as
 *   `MCP_RESULT_TOO_LARGE` for an answer past its `messageLimit` (`connectionBroken`).
 *
 * The message reaches the model, the checkpoint and the job result: a transport error can quote a
 * resolved URL or header, so secrets are masked and a foreign cause is dropped.
 */
export async function callServerTool(options: CallServerToolOptions): Promise<McpToolCallResult> {
  let result: Awaited<ReturnType<Client['callTool']>>;
  try {
    result = await withRequestSignal(options.signal, (signal) =>
      options.client.callTool(
        { name: options.toolName, arguments: (options.input ?? {}) as Record<string, unknown> },
        undefined,
        { signal, timeout: options.timeoutMs },
      ),
    );
  } catch (error) {
    // The connection refused a message while reading it and closed itself (`messageLimit`): the
    // request failed as closed, and this is why.
    const reason = closeReasonOf(options.client);
    if (McpConnectError.isInstance(reason)) {
      throw new McpConnectError({
        code: reason.code,
        message: maskServerError(
          `MCP server ${options.serverId}, tool ${options.toolName}: ${reason.message}`,
          options.secretValues ?? [],
        ),
        connectionBroken: true,
      });
    }
    const aborted = options.signal?.aborted === true;
    const kind = aborted ? 'answered' : classifySdkError(error, options.client);
    const code =
      kind === 'timeout'
        ? MCP_ERROR_CODES.callTimeout
        : kind === 'closed'
          ? MCP_ERROR_CODES.transportClosed
          : MCP_ERROR_CODES.callFailed;
    const detail = kind === 'timeout' ? `no answer within ${options.timeoutMs} ms` : messageOf(error);
    throw new McpConnectError({
      code,
      message: maskServerError(
        `MCP server ${options.serverId}, tool ${options.toolName}: ${detail}`,
        options.secretValues ?? [],
      ),
      connectionBroken: kind !== 'answered',
      cause: AgentqError.isInstance(error) ? error : undefined,
    });
  }
  // Servers on the 2024-10-07 protocol answer with `toolResult` instead of `content`.
  if ('toolResult' in result && !('content' in result)) {
    return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
  }
  const answer: McpToolCallResult = {
    content: (result.content ?? []) as Array<Record<string, unknown>>,
    isError: result.isError === true ? true : undefined,
    structuredContent: result.structuredContent,
  };
  // An error result is the server's own error text and may echo the request (a resolved URL or
  // header), so it is masked here already. A successful one is masked by the agent worker, where
  // every tool's result passes (MCP or not), against every secret the process knows.
  return answer.isError ? maskSecretsDeep(answer, options.secretValues ?? []) : answer;
}
