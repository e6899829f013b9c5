import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** The message of an unknown thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a failed SDK request means for the connection it was sent on. */
export type SdkFailureKind = 'timeout' | 'closed' | 'answered' | 'transport';

/**
 * What an error out of an MCP SDK request means for the connection it came from:
 * - `timeout`: the SDK's request timer fired (the server may still be working);
 * - `closed`: the connection closed under the request, or was already closed when it was sent;
 * - `answered`: the server sent a JSON-RPC error, so the connection itself works;
 * - `transport`: anything else (socket, HTTP status), so the connection may be broken.
 *
 * Decided on the SDK's numeric codes and the client's state, never on message text. The client
 * matters because a request sent just after the server died fails with a plain error rather than
 * `ConnectionClosed`: which one a crash produces is a race, the code must not be.
 */
export function classifySdkError(error: unknown, client?: Client): SdkFailureKind {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) return 'timeout';
    if (error.code === ErrorCode.ConnectionClosed) return 'closed';
    return 'answered';
  }
  if (client && client.transport === undefined) return 'closed';
  return 'transport';
}
