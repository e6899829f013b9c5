// Shared by the tool search benchmark suites and the dev-split tuning script: loads the
// evaluation set, builds registry entries exactly as a worker does, and scores rankings.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assignMcpWireNames,
  createMcpToolEntry,
  createMetaTools,
  createQueryEmbedder,
  toolEmbeddingText,
  type Embedder,
  createRunToolState,
  ToolRegistry,
  type McpToolCaller,
  type ToolEntry,
} from '@agentq/registry';
import { createEmbedder } from '@agentq/models';
import {
  catalogToolSchema,
  serverDefinitionSchema,
  toolId,
  type CatalogTool,
  type ServerDefinitionInput,
} from '@agentq/shared';
import type { ToolSet } from 'ai';
import MiniSearch from 'minisearch';
import { z } from 'zod';

const here = dirname(fileURLToPath(import.meta.url));
const caller: McpToolCaller = { callTool: async () => ({ content: [] }) };

/**
 * Where the evaluation set lives: `bench/data/tool-search-eval/` (written by a separate effort
 * that never sees the ranker), or `TOOL_SEARCH_EVAL_DIR` for a copy elsewhere.
 */
export function evalDirectory(): string {
  return process.env.TOOL_SEARCH_EVAL_DIR ?? join(here, '..', 'data', 'tool-search-eval');
}

const evalToolsSchema = z.object({
  servers: z.array(
    z.object({
      id: z.string().min(1),
      package: z.string().optional(),
      version: z.string().optional(),
      tools: z.array(z.unknown()),
    }),
  ),
});

const evalQuerySchema = z.object({
  id: z.union([z.string(), z.number()]),
  query: z.string().min(1),
  kind: z.string().default('unknown'),
  expected: z.array(z.string().min(1)).min(1),
  split: z.enum(['dev', 'test']),
});
const evalQueriesSchema = z.object({ queries: z.array(evalQuerySchema) });

export type EvalQuery = z.output<typeof evalQuerySchema>;

/** A server and its tools, in the shape {@link entriesOf} takes. */
export interface EvalServer {
  definition: ServerDefinitionInput;
  tools: CatalogTool[];
}

/** The evaluation set, or the reason it cannot be used yet. */
export async function loadEvalSet(
  directory = evalDirectory(),
): Promise<{ servers: EvalServer[]; queries: EvalQuery[] } | { missing: string }> {
  const toolsPath = join(directory, 'tools.json');
  const queriesPath = join(directory, 'queries.json');
  for (const path of [toolsPath, queriesPath]) {
    if (!existsSync(path)) return { missing: `${path} does not exist` };
  }
  const tools = evalToolsSchema.parse(JSON.parse(await readFile(toolsPath, 'utf8')));
  const queries = evalQueriesSchema.parse(JSON.parse(await readFile(queriesPath, 'utf8')));
  const servers = tools.servers.map((server) => ({
    definition: { id: server.id, transport: { type: 'stdio' as const, command: `mcp-server-${server.id}` } },
    // Tools whose schema the catalog would refuse are dropped, as a warmer would drop them.
    tools: server.tools.flatMap((raw) => {
      const parsed = catalogToolSchema.safeParse(raw);
      return parsed.success ? [parsed.data] : [];
    }),
  }));
  return { servers, queries: queries.queries };
}

/**
 * The development half, its servers and every entry, for the dev-only scripts; exits with a note
 * when the evaluation set is missing. Never returns the frozen test half.
 */
export async function loadDevHalf(): Promise<{ servers: EvalServer[]; dev: EvalQuery[]; entries: ToolEntry[] }> {
  const set = await loadEvalSet();
  if ('missing' in set) {
    console.log(`no evaluation set: ${set.missing}`);
    process.exit(0);
  }
  return {
    servers: set.servers,
    dev: set.queries.filter((query) => query.split === 'dev'),
    entries: entriesOf(set.servers),
  };
}

/** Registry entries of `servers`, named and built as a worker builds them. */
export function entriesOf(servers: readonly EvalServer[]): ToolEntry[] {
  return servers.flatMap((server) => {
    const definition = serverDefinitionSchema.parse(server.definition);
    const names = assignMcpWireNames(server.tools.map((one) => ({ serverId: definition.id, toolName: one.name })));
    return server.tools.map((one) =>
      createMcpToolEntry({
        definition,
        tool: one,
        wireName: names.get(toolId(definition.id, one.name)) as string,
        caller,
      }),
    );
  });
}

/** Expected ids are `<serverId>/<toolName>`; entries know `serverId:toolName`. */
export function evalIdOf(entry: ToolEntry): string {
  return entry.mcp ? `${entry.mcp.serverId}/${entry.mcp.toolName}` : entry.name;
}

/**
 * Hybrid `tool_search` over the fake embedding server (hashed trigram vectors, loopback): every
 * tool's embedding text is embedded through {@link createEmbedder} as a warmer would, set on the
 * registry's index by tool id, and each query is embedded by the meta tool. A plumbing check of
 * the vector path, not a measure of what a real model would add.
 */
export async function hybridRanker(
  entries: readonly ToolEntry[],
  servers: readonly EvalServer[],
  baseUrl: string,
): Promise<Ranker> {
  const embedder = createEmbedder({
    embeddingModel: 'openai-compatible:fake-embed',
    embeddingBaseUrl: baseUrl,
    openaiApiKey: undefined,
    openaiCompatibleBaseUrl: undefined,
    openaiCompatibleApiKey: undefined,
  }) as Embedder;
  const registry = new ToolRegistry();
  for (const entry of entries) registry.register(entry);
  const tools = servers.flatMap((server) =>
    server.tools.map((one) => ({ key: toolId(String(server.definition.id), one.name), one })),
  );
  const vectors = await embedder.embed(tools.map(({ one }) => toolEmbeddingText(one)));
  tools.forEach(({ key }, index) => registry.searchIndex?.setVector(key, Float32Array.from(vectors[index] ?? [])));
  return metaToolRanker(entries, { registry, embedQuery: createQueryEmbedder(embedder) });
}

/** A ranking function: the ids of the top 10 for a query, best first. */
export type Ranker = (query: string) => Promise<string[]>;

/**
 * agentq's `tool_search` as the model calls it: every entry deferred behind the meta tools of one
 * run over a registry that holds them all, `limit: 10`.
 */
export function metaToolRanker(
  entries: readonly ToolEntry[],
  options: { embedQuery?: Parameters<typeof createMetaTools>[0]['embedQuery']; registry?: ToolRegistry } = {},
): Ranker {
  const registry = options.registry ?? new ToolRegistry();
  if (!options.registry) for (const entry of entries) registry.register(entry);
  const tools: ToolSet = {};
  const idByName = new Map<string, string>();
  for (const entry of entries) {
    tools[entry.name] = entry.tool;
    idByName.set(entry.name, evalIdOf(entry));
  }
  const state = createRunToolState();
  state.allowedNames = Object.keys(tools).sort();
  const meta = createMetaTools({ registry, tools, deferred: [...entries], state, embedQuery: options.embedQuery });
  return async (query) => {
    const output = (await meta.tool_search.execute?.({ query, limit: 10 }, { toolCallId: 'bench', messages: [] })) as {
      results: Array<{ name: string }>;
    };
    return output.results.map((item) => idByName.get(item.name) ?? item.name);
  };
}

function parameterNames(entry: ToolEntry, catalog: Map<string, CatalogTool>): string {
  const source = entry.mcp ? catalog.get(entry.mcp.toolId) : undefined;
  const properties = (source?.inputSchema.properties ?? {}) as Record<string, unknown>;
  return Object.keys(properties).join(' ');
}

/**
 * The plain baseline: minisearch with its default options (BM25, default tokenizer, no stemming,
 * no prefix or fuzzy matching) over the tool name, its description and its parameter names.
 */
export function bm25Ranker(entries: readonly ToolEntry[], servers: readonly EvalServer[]): Ranker {
  const catalog = new Map<string, CatalogTool>();
  for (const server of servers)
    for (const one of server.tools) catalog.set(toolId(server.definition.id, one.name), one);
  const search = new MiniSearch<{ id: number; name: string; description: string; params: string }>({
    fields: ['name', 'description', 'params'],
  });
  search.addAll(
    entries.map((entry, id) => ({
      id,
      name: entry.mcp?.toolName ?? entry.name,
      description: (entry.tool as { description?: string }).description ?? '',
      params: parameterNames(entry, catalog),
    })),
  );
  return async (query) =>
    search
      .search(query)
      .slice(0, 10)
      .map((result) => evalIdOf(entries[result.id as number] as ToolEntry));
}

/** recall@1, recall@5 and MRR@10 of a ranker over queries. */
export interface Scores {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  mrrAt10: number;
  misses: Array<{ id: string | number; query: string; expected: string[]; got: string[] }>;
}

export async function scoreRanker(
  queries: ReadonlyArray<Pick<EvalQuery, 'id' | 'query' | 'expected'>>,
  rank: Ranker,
): Promise<Scores> {
  let hits1 = 0;
  let hits5 = 0;
  let reciprocal = 0;
  const misses: Scores['misses'] = [];
  for (const { id, query, expected } of queries) {
    const ranked = (await rank(query)).slice(0, 10);
    const position = ranked.findIndex((found) => expected.includes(found));
    if (position === 0) hits1 += 1;
    if (position >= 0 && position < 5) hits5 += 1;
    else misses.push({ id, query, expected, got: ranked.slice(0, 5) });
    if (position >= 0) reciprocal += 1 / (position + 1);
  }
  const count = Math.max(queries.length, 1);
  return {
    queries: queries.length,
    recallAt1: hits1 / count,
    recallAt5: hits5 / count,
    mrrAt10: reciprocal / count,
    misses,
  };
}
