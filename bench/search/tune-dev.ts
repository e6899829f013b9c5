// Development-split report for tuning the ranker: `npx tsx bench/search/tune-dev.ts [--misses]`.
// It reads the dev half only and never scores the frozen test half; the test half is measured
// once, by `npm run bench`, after the ranker is settled.
import { bm25Ranker, entriesOf, loadEvalSet, metaToolRanker, scoreRanker } from './tool-search-eval.js';

const set = await loadEvalSet();
if ('missing' in set) {
  console.log(`no evaluation set: ${set.missing}`);
  process.exit(0);
}
const dev = set.queries.filter((query) => query.split === 'dev');
const entries = entriesOf(set.servers);
const ours = await scoreRanker(dev, metaToolRanker(entries));
const theirs = await scoreRanker(dev, bm25Ranker(entries, set.servers));
const format = (value: number) => value.toFixed(3);
console.log(`dev: ${dev.length} queries over ${entries.length} tools`);
console.log(`agentq  r@1 ${format(ours.recallAt1)}  r@5 ${format(ours.recallAt5)}  mrr@10 ${format(ours.mrrAt10)}`);
console.log(
  `bm25    r@1 ${format(theirs.recallAt1)}  r@5 ${format(theirs.recallAt5)}  mrr@10 ${format(theirs.mrrAt10)}`,
);
for (const kind of [...new Set(dev.map((query) => query.kind))].sort()) {
  const queries = dev.filter((query) => query.kind === kind);
  const kindOurs = await scoreRanker(queries, metaToolRanker(entries));
  console.log(`  ${kind} (${queries.length}): r@5 ${format(kindOurs.recallAt5)}`);
}
if (process.argv.includes('--misses')) {
  for (const miss of ours.misses)
    console.log(`${miss.query} | ${miss.expected.join(',')} | ${miss.got.slice(0, 3).join(',')}`);
}
