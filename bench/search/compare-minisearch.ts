// The in-house BM25F against minisearch given the same analyzer, field boosts and filter:
// `node --expose-gc --import tsx bench/search/compare-minisearch.ts [--split dev|test]`.
// Both rank the same documents (`searchFieldsOf`), analyzed by the same `analyzeText`, behind the
// same exact-name step, and only among a run's allowed tools. Reports recall@1/@5, MRR@10, index
// build time (median of 5) and the heap the index holds (largest of 5, after a full GC). Nothing is tuned here: the minisearch settings mirror
// the in-house ones (k1 1.2, field weights), and its one global `b` is the in-house default 0.75.
import { performance } from 'node:perf_hooks';
import { searchFieldsOf, searchKeyOf, TOOL_SEARCH_STOP_WORDS, ToolSearchIndex, type ToolEntry } from '@agentq/registry';
import { analyzeText } from '@agentq/shared';
import MiniSearch from 'minisearch';
import { entriesOf, loadEvalSet, scoreRanker, type Ranker, type Scores } from './tool-search-eval.js';

const FIELD_BOOSTS = { name: 3, title: 2, description: 1, params: 0.5, server: 3 } as const;
const FIELDS = Object.keys(FIELD_BOOSTS) as Array<keyof typeof FIELD_BOOSTS>;

const splitArgument = process.argv.indexOf('--split');
const split = splitArgument === -1 ? 'dev' : (process.argv[splitArgument + 1] as 'dev' | 'test');

const set = await loadEvalSet();
if ('missing' in set) {
  console.log(`no evaluation set: ${set.missing}`);
  process.exit(0);
}
const queries = set.queries.filter((query) => query.split === split);
const entries = entriesOf(set.servers);
const idOf = (entry: ToolEntry) => (entry.mcp ? `${entry.mcp.serverId}/${entry.mcp.toolName}` : entry.name);
// Every tool is allowed: the filter runs on every hit, as a run's allow-list does.
const allowed = new Set(entries.map(searchKeyOf));

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function measure(
  name: string,
  build: () => { rank: Ranker; keep: unknown },
): Promise<{ name: string; scores: Scores; buildMs: number; heapBytes: number }> {
  const times: number[] = [];
  const heaps: number[] = [];
  let built: { rank: Ranker; keep: unknown } | undefined;
  for (let round = 0; round < 5; round += 1) {
    built = undefined;
    const before = heapUsed();
    const started = performance.now();
    built = build();
    times.push(performance.now() - started);
    heaps.push(heapUsed() - before);
  }
  const scores = await scoreRanker(queries, (built as { rank: Ranker }).rank);
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return { name, scores, buildMs: median(times), heapBytes: Math.max(...heaps) };
}

const inHouse = await measure('in-house BM25F', () => {
  const index = new ToolSearchIndex(entries);
  const rank: Ranker = async (query) => index.search(query, { keys: allowed, limit: 10 }).map((hit) => idOf(hit.entry));
  return { rank, keep: index };
});

const mini = await measure('minisearch', () => {
  const search = new MiniSearch<ReturnType<typeof searchFieldsOf> & { id: number }>({
    fields: FIELDS,
    storeFields: [],
    tokenize: (text) => analyzeText(text, 'index', TOOL_SEARCH_STOP_WORDS),
    processTerm: (term) => term,
    searchOptions: {
      tokenize: (text) => analyzeText(text, 'query', TOOL_SEARCH_STOP_WORDS),
      processTerm: (term) => term,
      boost: FIELD_BOOSTS,
      bm25: { k: 1.2, b: 0.75, d: 0 },
    },
  });
  search.addAll(entries.map((entry, id) => ({ id, ...searchFieldsOf(entry) })));
  const forms = new Map<string, number[]>();
  entries.forEach((entry, id) => {
    for (const form of new Set([entry.name, entry.mcp?.toolName ?? entry.name].map(normalize))) {
      forms.set(form, [...(forms.get(form) ?? []), id]);
    }
  });
  const rank: Ranker = async (query) => {
    const exact = forms.get(normalize(query)) ?? [];
    const hits = search.search(query, {
      filter: (result) => allowed.has(searchKeyOf(entries[result.id as number] as ToolEntry)),
    });
    const ids = [...exact, ...hits.map((hit) => hit.id as number).filter((id) => !exact.includes(id))];
    return ids.slice(0, 10).map((id) => idOf(entries[id] as ToolEntry));
  };
  return { rank, keep: search };
});

function normalize(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

console.log(`${split}: ${queries.length} queries over ${entries.length} tools`);
for (const { name, scores, buildMs, heapBytes } of [inHouse, mini]) {
  console.log(
    `${name.padEnd(16)} r@5 ${scores.recallAt5.toFixed(3)}  r@1 ${scores.recallAt1.toFixed(3)}  mrr@10 ${scores.mrrAt10.toFixed(3)}  build ${buildMs.toFixed(0)} ms  heap ${(heapBytes / 1024 / 1024).toFixed(1)} MB`,
  );
}
