// Development-split report for tuning the ranker:
// `npx tsx bench/search/tune-dev.ts [--misses] [--wordnet] [--enrich] [--options '<json>']`
// (--wordnet: with WordNet expansion; --enrich: with example requests from the model of
// AGENTQ_SEARCH_ENRICH_MODEL, cached in bench/results/enrichments-<model>.json; --options:
// `ToolSearchIndexOptions` to try, such as '{"verbClassWeight":0.3}' or '{"fieldWeights":{"examples":0.5}}').
// It reads the dev half only and never scores the frozen test half; the test half is measured
// once, by `npm run bench`, after the ranker is settled.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSearchEnricher } from '@agentq/models';
import { createWordnetSynonyms, ToolRegistry, type ToolSearchIndexOptions } from '@agentq/registry';
import { loadConfig } from '@agentq/shared';
import { enrichEvalTools, enrichmentCachePath } from './enrich-eval-tools.js';
import { bm25Ranker, loadDevHalf, metaToolRanker, scoreRanker } from './tool-search-eval.js';

const { servers, dev, entries } = await loadDevHalf();
const wordnet = process.argv.includes('--wordnet');
const optionsAt = process.argv.indexOf('--options');
const tried = (optionsAt === -1 ? {} : JSON.parse(process.argv[optionsAt + 1] ?? '{}')) as ToolSearchIndexOptions;
const enrich = process.argv.includes('--enrich');
const enricher = enrich ? createSearchEnricher(loadConfig(process.env)) : null;
if (enrich && !enricher) {
  console.log('--enrich needs AGENTQ_SEARCH_ENRICH_MODEL (and the key or base URL of its provider)');
  process.exit(1);
}
const registry = new ToolRegistry({
  search: { ...tried, ...(wordnet ? { synonyms: createWordnetSynonyms() } : {}) },
});
for (const entry of entries) registry.register(entry);
if (enricher) {
  const cachePath = enrichmentCachePath(
    join(dirname(fileURLToPath(import.meta.url)), '..', 'results'),
    enricher.modelId,
  );
  const cost = await enrichEvalTools({ servers, registry, enricher, cachePath });
  console.log(
    `enriched ${cost.tools} tools with ${enricher.modelId}: ${cost.calls} calls now, ${cost.failed} failed, tokens in/out ${cost.inputTokens}/${cost.outputTokens} (cache ${cachePath})`,
  );
}
// One registry for every ranking: its index is built (and enriched) once.
const ranker = () => metaToolRanker(entries, { registry });
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
