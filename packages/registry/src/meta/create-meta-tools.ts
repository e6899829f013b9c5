import { tool, type Tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { toolJsonSchema } from '../exposition/estimate-tool-tokens.js';
import { markInspected, type RunToolState } from '../exposition/run-tool-state.js';
import { labelOf, type ToolEntry } from '../registry/tool-entry.js';
import type { ToolRegistry } from '../registry/tool-registry.js';
import { META_TOOL_NAMES } from '../wire-names/tool-names.js';
import { dispatchToolCall } from './dispatch-tool-call.js';
import { renderToolSignature } from './render-tool-signature.js';
import { createToolSearchIndex, DEFAULT_SEARCH_LIMIT, type ToolSearchIndex } from './tool-search-index.js';

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
  /** A prebuilt index over `deferred`. @default createToolSearchIndex(deferred) */
  searchIndex?: ToolSearchIndex;
  /** Results per search. @default 8 */
  searchLimit?: number;
}

/** Deferred tools listed when `tool_search` has no query. */
const LIST_LIMIT = 50;

const searchInput = z.object({
  query: z.string().optional().describe('What you need, in a few words, or a tool name.'),
  namespace: z.string().optional().describe('Only tools of this group, as listed in the deferred tools section.'),
  verbose: z.boolean().optional().describe("Also return each tool's JSON schema."),
});
const inspectInput = z.object({ name: z.string().describe('Exact tool name.') });
const invokeInput = z.object({
  name: z.string().describe('Exact tool name.'),
  params: z.record(z.string(), z.unknown()).optional().describe('Parameters, matching the tool signature.'),
});

/**
 * `tool_search`, `tool_inspect` and `tool_invoke` for one run. Search lists deferred tools only,
 * ranked, grouped by label; inspect returns a JSDoc stub; invoke runs a tool of this request after
 * the checks of {@link dispatchToolCall}.
 */
export function createMetaTools(options: CreateMetaToolsOptions): {
  tool_search: Tool;
  tool_inspect: Tool;
  tool_invoke: Tool;
} {
  const { tools, state } = options;
  let index = options.searchIndex;
  const indexOf = () => (index ??= createToolSearchIndex(options.deferred));

  const describe = (entry: ToolEntry, verbose: boolean) => {
    const perRun = tools[entry.name];
    if (!verbose || !perRun) return { name: entry.name, description: entry.description };
    markInspected(state, entry.name);
    return { name: entry.name, description: entry.description, schema: toolJsonSchema(perRun) };
  };

  const tool_search = tool({
    description:
      'Search the deferred tools by what you need. Returns the best matches grouped by group, with ' +
      'their names. Then read a signature with tool_inspect and run the tool with tool_invoke.',
    inputSchema: searchInput,
    execute: async ({ query, namespace, verbose }) => {
      const trimmed = query?.trim() ?? '';
      const found =
        trimmed === ''
          ? indexOf().list(namespace).slice(0, LIST_LIMIT)
          : indexOf()
              .search(trimmed, { namespace, limit: options.searchLimit ?? DEFAULT_SEARCH_LIMIT })
              .map((hit) => hit.entry);
      const available = found.filter((entry) => state.allowedNames.includes(entry.name));
      if (available.length === 0) {
        return {
          results: [],
          message: 'No deferred tool matches. Broaden the query, use other words, or drop the namespace filter.',
        };
      }
      const groups = new Map<string, Array<{ name: string; description: string; schema?: unknown }>>();
      for (const entry of available) {
        const label = labelOf(entry);
        const group = groups.get(label) ?? [];
        group.push(describe(entry, verbose ?? false));
        groups.set(label, group);
      }
      return { results: [...groups.entries()].map(([namespace, members]) => ({ namespace, tools: members })) };
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
