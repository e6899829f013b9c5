// Builders shared by this package's unit tests. Not part of the public API.
import {
  catalogToolSchema,
  serverDefinitionSchema,
  type CatalogTool,
  type ServerDefinition,
  type ServerDefinitionInput,
} from '@agentq/shared';
import { tool, type Tool } from 'ai';

import type { CatalogRead, CatalogReader } from '../catalog/catalog-reader.js';
import type { McpCallResult, McpToolCaller, McpToolCallRequest } from '../mcp/mcp-tool-caller.js';
import type { DeferMode, ToolEntry } from '../registry/tool-entry.js';
import { toolInputSchema } from '../schema/tool-input-schema.js';
import { assignServerSegments } from '../wire-names/assign-server-segments.js';

/** A plain tool with a JSON schema and an execute that echoes its input. */
export function makeTool(
  options: {
    description?: string;
    schema?: Record<string, unknown>;
    needsApproval?: Tool['needsApproval'];
    execute?: (input: unknown, callOptions: { toolCallId: string }) => unknown;
  } = {},
): Tool {
  return tool<unknown, unknown>({
    description: options.description ?? 'A test tool.',
    inputSchema: toolInputSchema(options.schema ?? { type: 'object', properties: { text: { type: 'string' } } }),
    needsApproval: options.needsApproval,
    execute: async (input, callOptions) => (options.execute ? options.execute(input, callOptions) : { echoed: input }),
  });
}

/** A registry entry around {@link makeTool}. */
export function makeEntry(
  name: string,
  options: {
    namespace?: string;
    label?: string;
    defer?: DeferMode;
    description?: string;
    tool?: Tool;
    applies?: ToolEntry['applies'];
  } = {},
): ToolEntry {
  return {
    name,
    namespace: options.namespace ?? 'test',
    namespaceLabel: options.label,
    description: options.description ?? `${name} blurb`,
    defer: options.defer ?? 'auto',
    tool: options.tool ?? makeTool({ description: options.description }),
    applies: options.applies,
  };
}

/** A bulky but realistic input schema, so that token costs look like real MCP tools. */
export function bulkySchema(seed: number): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      repository: { type: 'string', description: `Repository in owner/name form, for project ${seed}.` },
      query: { type: 'string', description: 'Free text query; supports qualifiers such as label:bug and author:me.' },
      limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Maximum number of results to return.' },
      state: { type: 'string', enum: ['open', 'closed', 'all'], description: 'Filter by state.' },
      options: {
        type: 'object',
        description: 'Advanced options.',
        properties: {
          includeArchived: { type: 'boolean', description: 'Also include archived items.' },
          sort: { type: 'string', enum: ['created', 'updated', 'comments'] },
        },
      },
    },
    required: ['repository'],
  };
}

/** A validated server definition. */
export function makeDefinition(input: Partial<ServerDefinitionInput> & { id: string }): ServerDefinition {
  return serverDefinitionSchema.parse({ transport: { type: 'stdio', command: 'node', args: ['server.js'] }, ...input });
}

/** A validated catalog tool. */
export function makeCatalogTool(name: string, extra: Partial<CatalogTool> = {}): CatalogTool {
  return catalogToolSchema.parse({
    name,
    description: `Does ${name}.`,
    inputSchema: {
      type: 'object',
      properties: { value: { type: 'string', description: 'A value.' } },
      required: ['value'],
    },
    ...extra,
  });
}

/** A catalog reader over an in-memory map, counting its reads. */
export class FakeCatalogReader implements CatalogReader {
  readonly reads = new Map<string, CatalogRead>();
  readManyCalls: string[][] = [];
  listServersCalls = 0;
  failing = new Set<string>();

  setReady(
    definition: ServerDefinition,
    tools: CatalogTool[],
    version = `v-${tools.map((t) => t.name).join(',')}`,
  ): void {
    this.reads.set(definition.id, {
      serverId: definition.id,
      state: tools.length === 0 ? 'empty' : 'ready',
      tools,
      version,
      ageMs: 0,
      definition,
    });
  }

  setCold(
    serverId: string,
    coldReason: NonNullable<CatalogRead['coldReason']>,
    definition: ServerDefinition | null = null,
  ): void {
    this.reads.set(serverId, { serverId, state: 'cold', tools: [], definition, coldReason });
  }

  async listTools(serverId: string): Promise<CatalogRead> {
    return (await this.readMany([serverId])).get(serverId) as CatalogRead;
  }

  async readMany(serverIds: readonly string[]): Promise<Map<string, CatalogRead>> {
    this.readManyCalls.push([...serverIds]);
    const out = new Map<string, CatalogRead>();
    // Like the real reader: segments over every enabled server this "store" holds.
    const enabled = [...this.reads.values()].flatMap((read) => (read.definition?.enabled ? [read.serverId] : []));
    const segments = assignServerSegments(enabled);
    for (const serverId of serverIds) {
      const read = this.reads.get(serverId);
      const segment = segments.get(serverId);
      if (!read) {
        out.set(serverId, { serverId, state: 'cold', tools: [], definition: null, coldReason: 'unknown-server' });
      } else {
        out.set(serverId, read.state !== 'cold' && segment !== undefined ? { ...read, wireSegment: segment } : read);
      }
    }
    return out;
  }

  async listServers(): Promise<ServerDefinition[]> {
    this.listServersCalls += 1;
    return [...this.reads.values()]
      .map((read) => read.definition)
      .filter((definition): definition is ServerDefinition => definition !== null);
  }

  async getServer(serverId: string): Promise<ServerDefinition | null> {
    return this.reads.get(serverId)?.definition ?? null;
  }
}

/** An MCP caller that records requests and answers with a scripted result. */
export class FakeMcpCaller implements McpToolCaller {
  readonly requests: McpToolCallRequest[] = [];
  constructor(
    private readonly answer: (request: McpToolCallRequest) => McpCallResult = () => ({
      content: [{ type: 'text', text: 'ok' }],
    }),
  ) {}

  async callTool(request: McpToolCallRequest): Promise<McpCallResult> {
    this.requests.push(request);
    return this.answer(request);
  }
}

/** Options passed to a tool's execute in tests. */
export const callOptions = { toolCallId: 'call-1', messages: [] };
