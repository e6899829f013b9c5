import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assignMcpWireNames,
  createMcpToolEntry,
  ToolRegistry,
  ToolSearchIndex,
  type McpToolCaller,
  type ToolEntry,
} from '@agentq/registry';
import {
  catalogToolSchema,
  serverDefinitionSchema,
  toolId,
  type CatalogTool,
  type ServerDefinitionInput,
} from '@agentq/shared';
import { realisticServers } from '../../test/fixtures/tool-pools/realistic-pool.js';
import { atLeast, type BenchFigure, type BenchSuite } from '../bench-types.js';

const here = dirname(fileURLToPath(import.meta.url));
const caller: McpToolCaller = { callTool: async () => ({ content: [] }) };

interface Snapshot {
  servers: Array<{ id: string; name: string; tools: unknown[] }>;
}
interface QuerySet {
  queries: Array<{ query: string; expected: string[] }>;
}

function entriesOf(servers: Array<{ definition: ServerDefinitionInput; tools: CatalogTool[] }>): ToolEntry[] {
  return servers.flatMap((server) => {
    const definition = serverDefinitionSchema.parse(server.definition);
    const names = assignMcpWireNames(server.tools.map((tool) => ({ serverId: definition.id, toolName: tool.name })));
    return server.tools.map((tool) =>
      createMcpToolEntry({ definition, tool, wireName: names.get(toolId(definition.id, tool.name)) as string, caller }),
    );
  });
}

interface Scores {
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  misses: Array<{ query: string; expected: string[]; got: string[] }>;
}

function score(queries: QuerySet['queries'], rank: (query: string) => ToolEntry[]): Scores {
  let hits1 = 0;
  let hits5 = 0;
  let reciprocal = 0;
  const misses: Scores['misses'] = [];
  for (const { query, expected } of queries) {
    const ranked = rank(query).map((entry) => entry.mcp?.toolId ?? entry.name);
    const position = ranked.findIndex((id) => expected.includes(id));
    if (position === 0) hits1 += 1;
    if (position >= 0 && position < 5) hits5 += 1;
    else misses.push({ query, expected, got: ranked.slice(0, 5) });
    if (position >= 0) reciprocal += 1 / (position + 1);
  }
  return {
    recallAt1: hits1 / queries.length,
    recallAt5: hits5 / queries.length,
    mrr: reciprocal / queries.length,
    misses,
  };
}

/**
 * `tool_search` ranking quality on paraphrased needs over the real tools of server-everything,
 * server-memory and server-filesystem (bench/data/real-mcp-tools.json, captured from the servers
 * themselves), mixed into 1 000 realistic distractor tools from 40 SaaS-like servers. Baseline in
 * the same run: the seed's plain substring filter (`registry.getAll({ query })`), which has no
 * ranking.
 */
const suite: BenchSuite = {
  name: 'registry-search-quality',
  description:
    'tool_search recall@1, recall@5 and MRR over real MCP tools in a 1 000-tool distractor pool (goal recall@5 >= 0.9)',
  async run() {
    const snapshot = JSON.parse(await readFile(join(here, '..', 'data', 'real-mcp-tools.json'), 'utf8')) as Snapshot;
    const querySet = JSON.parse(
      await readFile(join(here, '..', 'data', 'tool-search-queries.json'), 'utf8'),
    ) as QuerySet;
    const real = snapshot.servers.map((server) => ({
      definition: {
        id: server.id,
        name: server.name,
        transport: { type: 'stdio' as const, command: `mcp-server-${server.id}` },
      },
      tools: server.tools.map((tool) => catalogToolSchema.parse(tool)),
    }));
    const distractors = realisticServers({ servers: 40, toolsPerServer: 25, seed: 11 });
    const entries = entriesOf([...real, ...distractors]);

    const buildStarted = performance.now();
    const index = new ToolSearchIndex(entries);
    const buildMs = performance.now() - buildStarted;
    const searchStarted = performance.now();
    const ranked = score(querySet.queries, (query) => index.search(query, { limit: 10 }).map((hit) => hit.entry));
    const searchMs = (performance.now() - searchStarted) / querySet.queries.length;

    const registry = new ToolRegistry();
    for (const entry of entries) registry.register(entry);
    const substring = score(querySet.queries, (query) => registry.getAll({ query }));

    const details = { tools: entries.length, realTools: entries.length - 1_000, queries: querySet.queries.length };
    const figures: BenchFigure[] = [
      {
        name: 'search.recall@5',
        value: ranked.recallAt5,
        unit: 'ratio',
        ...atLeast(ranked.recallAt5, 0.9),
        details: { ...details, misses: ranked.misses },
      },
      { name: 'search.recall@1', value: ranked.recallAt1, unit: 'ratio', details },
      { name: 'search.mrr', value: ranked.mrr, unit: 'ratio', details },
      { name: 'baseline.substring.recall@5', value: substring.recallAt5, unit: 'ratio', details },
      {
        name: 'search.recall@5/baseline',
        value:
          substring.recallAt5 === 0
            ? ranked.recallAt5 / (1 / querySet.queries.length)
            : ranked.recallAt5 / substring.recallAt5,
        unit: 'ratio',
        details: { note: 'baseline of 0 is counted as one hit' },
      },
      { name: 'search.indexBuild', value: buildMs, unit: 'ms' },
      { name: 'search.perQuery', value: searchMs, unit: 'ms' },
    ];
    return figures;
  },
};

export default suite;
