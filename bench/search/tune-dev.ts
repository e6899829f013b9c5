// Development-split report for tuning the ranker:
// `npx tsx bench/search/tune-dev.ts [--misses] [--wordnet] [--options '<json>']` (--wordnet: with
// WordNet expansion; --options: `ToolSearchIndexOptions` to try, such as '{"verbClassWeight":0.3}').
// It reads the dev half only and never scores the frozen test half; the test half is measured
// once, by `npm run bench`, after the ranker is settled.
import { createWordnetSynonyms, ToolRegistry, type ToolSearchIndexOptions } from '@agentq/registry';
import { bm25Ranker, loadDevHalf, metaToolRanker, scoreRanker } from './tool-search-eval.js';

const { servers, dev, entries } = await loadDevHalf();
const wordnet = process.argv.includes('--wordnet');
const optionsAt = process.argv.indexOf('--options');
const tried = (optionsAt === -1 ? {} : JSON.parse(process.argv[optionsAt + 1] ?? '{}')) as ToolSearchIndexOptions;
const ranker = () => {
  if (!wordnet && optionsAt === -1) return metaToolRanker(entries);
  const registry = new ToolRegistry({
    search: { ...tried, ...(wordnet ? { synonyms: createWordnetSynonyms() } : {}) },
  });
  for (const entry of entries) registry.register(entry);
  return metaToolRanker(entries, { registry });
};
const ours = await scoreRanker(dev, ranker());
const theirs = await scoreRanker(dev, bm25Ranker(entries, servers));
const format = (value: number) => value.toFixed(3);
console.log(`dev: ${dev.length} queries over ${entries.length} tools`);
console.log(`agentq  r@1 ${format(ours.recallAt1)}  r@5 ${format(ours.recallAt5)}  mrr@10 ${format(ours.mrrAt10)}`);
console.log(
  `bm25    r@1 ${format(theirs.recallAt1)}  r@5 ${format(theirs.recallAt5)}  mrr@10 ${format(theirs.mrrAt10)}`,
);
for (const kind of [...new Set(dev.map((query) => query.kind))].sort()) {
  const queries = dev.filter((query) => query.kind === kind);
  const kindOurs = await scoreRanker(queries, ranker());
  console.log(`  ${kind} (${queries.length}): r@5 ${format(kindOurs.recallAt5)}`);
}
if (process.argv.includes('--misses')) {
  for (const miss of ours.misses)
    console.log(`${miss.query} | ${miss.expected.join(',')} | ${miss.got.slice(0, 3).join(',')}`);
}
