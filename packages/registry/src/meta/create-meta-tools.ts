import { tool, type Tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { toolJsonSchema } from '../exposition/estimate-tool-tokens.js';
import { markInspected, type RunToolState } from '../exposition/run-tool-state.js';
import { mcpToolModelOutput } from '../mcp/mcp-tool-output.js';
import { labelOf, type ToolEntry } from '../registry/tool-entry.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { META_TOOL_NAMES } from '../wire-names/tool-names.js';
import { dispatchToolCall } from './dispatch-tool-call.js';
import { renderToolSignature } from './render-tool-signature.js';
import { suggestGroups } from './suggest-groups.js';
import { DEFAULT_SEARCH_LIMIT, searchKeyOf, ToolSearchIndex } from './tool-search-index.js';

/** Options of {@link createMetaTools}. */
export interface CreateMetaToolsOptions {
  /** Only read for entry metadata; tools are always resolved from `tools`. */
  registry: ToolRegistry;
  /** The run's full per-run tool set (inline and deferred), already wrapped for approval. */
  tools: ToolSet;
  /** The deferred entries, the only ones `tool_search` lists. */
  deferred: ToolEntry[];
  /** Per-run state; the meta tools record what the model inspected in it. */
  state: RunToolState;
  /**
   * The process's index, holding every deferred entry (by {@link searchKeyOf}); the run filters it
   * to its own tools. When it lacks one of them (a caller whose entries live outside the registry),
   * a private index over `deferred` is built on the first search instead.
   * @default registry.searchIndex
   */
  searchIndex?: ToolSearchIndex;
  /**
   * A note per namespace (`mcp:<serverId>`) whose cached list may be out of date, shown with each
   * of its results, for example `server unreachable since …; tools may be out of date`.
   * @default none
   */
  freshness?: ReadonlyMap<string, string>;
  /**
   * Embeds the query for hybrid ranking. Without it, or when it fails, search is lexical.
   * @default none
   */
  embedQuery?: (query: string, signal: AbortSignal | undefined) => Promise<number[] | undefined>;
}

/** Deferred tools listed when `tool_search` has no query. */
const LIST_LIMIT = 50;
/** Largest `limit` a model may ask `tool_search` for. */
export const MAX_SEARCH_LIMIT = 25;

const searchInput = z.object({
  query: z.string().optional().describe('What you need, in a few words, or a tool name.'),
  namespace: z.string().optional().describe('Only tools of this group, as listed in the deferred tools section.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_SEARCH_LIMIT)
    .optional()
    .describe(`How many tools to return, best first (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT}).`),
  verbose: z.boolean().optional().describe("Also return each tool's JSON schema."),
});
const inspectInput = z.object({ name: z.string().describe('Exact tool name.') });
const invokeInput = z.object({
  name: z.string().describe('Exact tool name.'),
  params: z.record(z.string(), z.unknown()).optional().describe('Parameters, matching the tool signature.'),
});

/** One `tool_search` result, in rank order. */
interface SearchResultItem {
  name: string;
  /** The tool's group (server label); a label only, results are never regrouped. */
  group: string;
  description: string;
  /** Set when the tool's server could not be reached lately: its list may be out of date. */
  freshness?: string;
  schema?: unknown;
}

/**
 * `tool_search`, `tool_inspect` and `tool_invoke` for one run. Search lists deferred tools only,
 * best first, each labelled with its group; inspect returns a JSDoc stub; invoke runs a tool of
 * this request after the checks of {@link dispatchToolCall}.
 */
export function createMetaTools(options: CreateMetaToolsOptions): {
  tool_search: Tool;
  tool_inspect: Tool;
  tool_invoke: Tool;
} {
  const { tools, state } = options;
  // Resolved on the first search, once per run: a map over the run's own entries, no index build.
  let scope: { index: ToolSearchIndex; byKey: Map<string, ToolEntry>; keys: ReadonlySet<string> } | undefined;
  const scopeOf = () => {
    if (scope) return scope;
    const byKey = new Map<string, ToolEntry>();
    const allowed = new Set(state.allowedNames);
    for (const entry of options.deferred) if (allowed.has(entry.name)) byKey.set(searchKeyOf(entry), entry);
    const shared = options.searchIndex ?? options.registry.searchIndex;
    const complete = shared !== undefined && [...byKey.keys()].every((key) => shared.has(key));
    const index = complete ? shared : new ToolSearchIndex(options.deferred);
    scope = { index, byKey, keys: new Set(byKey.keys()) };
    return scope;
  };

  const describe = (entry: ToolEntry, verbose: boolean): SearchResultItem => {
    const item: SearchResultItem = { name: entry.name, group: labelOf(entry), description: entry.description };
    const note = options.freshness?.get(entry.namespace);
    if (note !== undefined) item.freshness = note;
    const perRun = tools[entry.name];
    if (verbose && perRun) {
      markInspected(state, entry.name);
      item.schema = toolJsonSchema(perRun);
    }
    return item;
  };

  const tool_search = tool({
    description:
      'Search the deferred tools by what you need. Returns the best matches first, each with its ' +
      'group. Then read a signature with tool_inspect and run the tool with tool_invoke.',
    inputSchema: searchInput,
    execute: async ({ query, namespace, verbose, limit }, executionOptions) => {
      const { index, byKey, keys } = scopeOf();
      const trimmed = query?.trim() ?? '';
      let found: ToolEntry[];
      if (trimmed === '') {
        found = index
          .list({ namespace, keys })
          .map((entry) => byKey.get(searchKeyOf(entry)))
          .filter((entry): entry is ToolEntry => entry !== undefined)
          .slice(0, limit ?? LIST_LIMIT);
      } else {
        const queryVector = await embedSafely(options, trimmed, executionOptions?.abortSignal);
        found = index
          .search(trimmed, { namespace, keys, limit: limit ?? DEFAULT_SEARCH_LIMIT, queryVector })
          .map((hit) => byKey.get(hit.key))
          .filter((entry): entry is ToolEntry => entry !== undefined);
      }
      if (found.length === 0) {
        return {
          results: [],
          message: 'No deferred tool matches. Broaden the query, use other words, or search one of these groups.',
          suggestions: suggestGroups(trimmed, [...byKey.values()], namespace),
        };
      }
      return { results: found.map((entry) => describe(entry, verbose ?? false)) };
    },
  });

  const tool_inspect = tool({
    description: 'Show the signature of one tool (JSDoc), so that you can call it with tool_invoke.',
    inputSchema: inspectInput,
    execute: async ({ name }) => {
      const perRun = state.allowedNames.includes(name) && Object.hasOwn(tools, name) ? tools[name] : undefined;
      if (!perRun) {
        return {
          refused: true,
          code: 'TOOL_NOT_IN_REQUEST',
          message: `Tool ${name} is not available in this request.`,
        };
      }
      markInspected(state, name);
      return { name, signature: renderToolSignature(name, perRun) };
    },
  });

  const tool_invoke = tool({
    description: 'Run one tool by exact name with its params. Inspect the tool first.',
    inputSchema: invokeInput,
    execute: async ({ name, params }, executionOptions) =>
      dispatchToolCall({ name, params: params ?? {}, tools, state, outer: executionOptions }),
    // The result of the tool it ran reaches the model as that tool's own would: an MCP result's
    // images as image parts (as text for a model that takes none, see withTextOnlyToolResults),
    // never as base64 inside JSON text.
    toModelOutput: mcpToolModelOutput,
  });

  return {
    [META_TOOL_NAMES.search]: tool_search,
    [META_TOOL_NAMES.inspect]: tool_inspect,
    [META_TOOL_NAMES.invoke]: tool_invoke,
  } as {
    tool_search: Tool;
    tool_inspect: Tool;
    tool_invoke: Tool;
  };
}

async function embedSafely(
  options: CreateMetaToolsOptions,
  query: string,
  signal: AbortSignal | undefined,
): Promise<number[] | undefined> {
  if (!options.embedQuery) return undefined;
  try {
    return await options.embedQuery(query, signal);
  } catch {
    // Hybrid ranking is an improvement, never a dependency: a failing embedding model leaves the
    // lexical ranking, which is always there.
    return undefined;
  }
}
