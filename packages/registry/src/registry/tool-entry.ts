import type { AssistantSettings } from '@agentq/shared';
import type { Tool } from 'ai';

/**
 * How an entry takes part in deferral. `never`: always inline. `always`: always behind the meta
 * tools. `auto`: deferred together with the rest of the `auto` pool when that pays off.
 */
export type DeferMode = 'never' | 'always' | 'auto';

/** What a run selected, handed to every entry's `applies`. */
export interface ToolApplyScope {
  /** MCP tool ids (`serverId:toolName`) selected for this run. */
  mcpToolIds: ReadonlySet<string>;
  /**
   * The run's assistant settings; the builtin tools' `applies` reads their switches here.
   * @default none: every builtin tool is off
   */
  settings?: AssistantSettings;
}

/** Where an MCP entry came from. */
export interface McpEntrySource {
  serverId: string;
  toolName: string;
  /** `serverId:toolName`. */
  toolId: string;
  /** `digestOf(tool.inputSchema)`: changes exactly when the cached input schema changes. */
  schemaDigest: string;
}

/** One tool known to a {@link ToolRegistry}. */
export interface ToolEntry {
  /** The wire name the model emits. Unique within a registry. */
  name: string;
  /** Owner key: `web`, `kb`, `meta`, `mcp:<serverId>`. Never shown to the model. */
  namespace: string;
  /** What search groups by and shows, for example `mcp:<display name>`. Defaults to `namespace`. */
  namespaceLabel?: string;
  /** One-line blurb for search results. The full text is `tool.description`. */
  description: string;
  defer: DeferMode;
  /** The AI SDK tool itself: schema, execute, needsApproval. */
  tool: Tool;
  /** Whether the entry belongs to a request. Absent means always. A throw means inactive. */
  applies?(scope: ToolApplyScope): boolean;
  /**
   * The tool one run gets, bound to that run's scope (a builtin that must know which knowledge
   * bases the run may read, say). Same name and input schema as `tool`. Absent means `tool`.
   */
  forRun?(scope: ToolApplyScope): Tool;
  /**
   * Set for MCP entries. Such an entry applies only to a scope whose `mcpToolIds` holds
   * `mcp.toolId` (the registry selects MCP entries by id); its `applies` may narrow that further.
   */
  mcp?: McpEntrySource;
}

/** The label an entry is grouped and shown under. */
export function labelOf(entry: Pick<ToolEntry, 'namespace' | 'namespaceLabel'>): string {
  return entry.namespaceLabel ?? entry.namespace;
}
