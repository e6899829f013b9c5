// agentq's tool_search beside the searches other stacks ship, per query kind, as a Markdown table:
// `npx tsx bench/search/side-by-side.ts [--split dev|test]` (default dev). The frozen test split is
// scored once, after the ranker is settled, and reported as it comes.
import { ToolRegistry, type ToolEntry } from '@agentq/registry';
import {
  bm25Ranker,
  entriesOf,
  evalIdOf,
  loadEvalSet,
  metaToolRanker,
  scoreRanker,
  type Ranker,
} from './tool-search-eval.js';
import { aiSdkToolSearchRanker, regexToolSearchRanker } from './shipped-searches.js';

/** `tool_search` with the lexical first stage alone, for the reranker's effect in the same run. */
function firstStageRanker(entries: readonly ToolEntry[]): Ranker {
  const registry = new ToolRegistry({ search: { rerank: false } });
  for (const entry of entries) registry.register(entry);
  return metaToolRanker(entries, { registry });
}

const set = await loadEvalSet();
if ('missing' in set) {
  console.log(`no evaluation set: ${set.missing}`);
  process.exit(0);
}
const split = process.argv.includes('--split') ? process.argv[process.argv.indexOf('--split') + 1] : 'dev';
if (split !== 'dev' && split !== 'test') throw new Error('--split takes dev or test');
const queries = set.queries.filter((query) => query.split === split);
const entries = entriesOf(set.servers);
const rankers: Array<[string, Ranker]> = [
  ['agentq `tool_search`', metaToolRanker(entries)],
  ['agentq `tool_search`, first stage only (no reranker)', firstStageRanker(entries)],
  ['AI SDK `toolSearch()` (keywords)', aiSdkToolSearchRanker(entries, evalIdOf)],
  ['Anthropic-style regex', regexToolSearchRanker(entries, evalIdOf)],
  ['plain BM25 (minisearch)', bm25Ranker(entries, set.servers)],
];
const kinds = [...new Set(queries.map((query) => query.kind))].sort();
const format = (value: number) => value.toFixed(3);
console.log(`${split} split: ${queries.length} queries over ${entries.length} tools; recall@5 / recall@1 / MRR@10\n`);
console.log(
  `| search | all (${queries.length}) | ${kinds.map((kind) => `${kind} (${queries.filter((query) => query.kind === kind).length})`).join(' | ')} |`,
);
console.log(`|---|---|${kinds.map(() => '---').join('|')}|`);
for (const [label, rank] of rankers) {
  const cells: string[] = [];
  for (const subset of [queries, ...kinds.map((kind) => queries.filter((query) => query.kind === kind))]) {
    const scores = await scoreRanker(subset, rank);
    cells.push(`${format(scores.recallAt5)} / ${format(scores.recallAt1)} / ${format(scores.mrrAt10)}`);
  }
  console.log(`| ${label} | ${cells.join(' | ')} |`);
}
