import {
  AgentqError,
  digestOf,
  isAlwaysAsk,
  serverDisplayName,
  toolId as makeToolId,
  type CatalogTool,
  type ServerDefinition,
} from '@agentq/shared';
import { tool as defineTool, type Tool } from 'ai';
import type { ToolEntry } from '../registry/tool-entry.js';
import { toolInputSchema } from '../schema/tool-input-schema.js';
import { DEFAULT_TOOL_RESULT_MAX_BYTES, limitToolResultText } from './limit-tool-result.js';
import type { McpToolCaller } from './mcp-tool-caller.js';
import { mcpToolModelOutput, mcpToolOutput, type McpMediaOutput } from './mcp-tool-output.js';
import { summarizeMcpResult } from './summarize-mcp-result.js';

/** Options of {@link createMcpToolEntry}. */
export interface CreateMcpToolEntryOptions {
  /** The server's definition as read with the catalog. */
  definition: ServerDefinition;
  /** The cached tool. */
  tool: CatalogTool;
  /** Wire name, from `assignMcpWireNames` or `mcpWireName`. */
  wireName: string;
  caller: McpToolCaller;
  /**
   * Reads the server's current definition just before a call, so that a server disabled or
   * removed after the sync is refused. When absent, the definition above is used.
   */
  currentDefinition?: (serverId: string) => Promise<ServerDefinition | null>;
  /**
   * `AGENTQ_TOOL_RESULT_MAX_BYTES`: bytes of text one result (or its error text) keeps; the rest
   * is cut with a note. @default 1048576
   */
  maxResultBytes?: number;
}

const blurbLength = 160;

/** First sentence or line of a description, short enough for a search result. */
export function oneLineBlurb(description: string | undefined): string {
  const line = (description ?? '').trim().split('\n')[0]?.trim() ?? '';
  const sentence = /^(.+?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length > blurbLength ? `${sentence.slice(0, blurbLength - 1)}…` : sentence;
}

/**
 * A registry entry for one cached MCP tool. Its `execute` goes through the injected caller after
 * re-checking that the server is still enabled; an `isError` result becomes a thrown tool error
 * carrying the result's text, which the AI SDK hands back to the model. A result with images
 * returns them (within a byte budget, see `mcpToolOutput`) for the model to see. Text past
 * `maxResultBytes` is cut with a note before anything else sees it, so a server answering with
 * hundreds of megabytes cannot fill the journal, the checkpoint or the model's context.
 *
 * `alwaysAsk` decides both `needsApproval` and `defer: 'never'` from the same setting: a gated tool
 * hidden behind the meta tools would be reachable without the SDK's approval step.
 */
export function createMcpToolEntry(options: CreateMcpToolEntryOptions): ToolEntry {
  const { definition, tool: cached, caller } = options;
  const serverId = definition.id;
  const id = makeToolId(serverId, cached.name);
  const alwaysAsk = isAlwaysAsk(definition, cached.name);
  const description = cached.description ?? cached.title ?? cached.name;
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_TOOL_RESULT_MAX_BYTES;

  const sdkTool: Tool = defineTool<unknown, string | McpMediaOutput>({
    title: cached.title,
    description,
    inputSchema: toolInputSchema(cached.inputSchema),
    needsApproval: alwaysAsk ? true : undefined,
    metadata: { source: 'mcp', serverId, toolName: cached.name },
    async execute(input, executionOptions) {
      const current = options.currentDefinition ? await options.currentDefinition(serverId) : definition;
      if (!current || !current.enabled) {
        throw new AgentqError({ code: 'MCP_SERVER_NOT_ENABLED', message: `MCP server ${serverId} is not enabled` });
      }
      const result = await caller.callTool({
        serverId,
        definition: current,
        toolName: cached.name,
        input,
        signal: executionOptions.abortSignal,
        toolCallId: executionOptions.toolCallId,
      });
      if (result.isError) {
        const summary = limitToolResultText(summarizeMcpResult(result), maxResultBytes);
        throw new AgentqError({ code: 'MCP_TOOL_ERROR', message: summary || `MCP tool ${cached.name} failed` });
      }
      return mcpToolOutput(result, undefined, maxResultBytes);
    },
    // Images reach the model as image parts; the worker swaps in the text form for models that
    // cannot take them.
    toModelOutput: mcpToolModelOutput,
  });

  return {
    name: options.wireName,
    namespace: `mcp:${serverId}`,
    namespaceLabel: `mcp:${serverDisplayName(definition)}`,
    description: oneLineBlurb(description),
    defer: alwaysAsk ? 'never' : 'auto',
    tool: sdkTool,
    applies: (scope) => scope.mcpToolIds.has(id),
    mcp: { serverId, toolName: cached.name, toolId: id, schemaDigest: digestOf(cached.inputSchema) },
  };
}
