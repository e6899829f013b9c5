import type { ServerDefinition } from '@agentq/shared';

/** The result of an MCP `tools/call`, as the MCP SDK returns it. */
export interface McpCallResult {
  content: Array<Record<string, unknown>>;
  isError?: boolean;
  structuredContent?: unknown;
}

/** One MCP tool call. */
export interface McpToolCallRequest {
  serverId: string;
  /** The server's definition, with `${ENV}` placeholders unresolved. */
  definition: ServerDefinition;
  toolName: string;
  input: unknown;
  signal?: AbortSignal;
  toolCallId?: string;
}

/**
 * Calls MCP tools. The registry only knows this interface; the agent worker supplies the pooled
 * client implementation, so the registry never opens a connection itself.
 */
export interface McpToolCaller {
  callTool(request: McpToolCallRequest): Promise<McpCallResult>;
}
