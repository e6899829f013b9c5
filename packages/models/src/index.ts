/**
 * Model providers from configuration: the one place a provider package (`@ai-sdk/*`) is turned
 * into something the registry or a run uses: the embedder of `AGENTQ_EMBEDDING_MODEL` and the
 * search enricher of `AGENTQ_SEARCH_ENRICH_MODEL`.
 */
export { createEmbedder } from './embedding/create-embedder.js';
export type { CreateEmbedderOptions, EmbedderConfig } from './embedding/create-embedder.js';
export { createSearchEnricher } from './enrichment/create-search-enricher.js';
export type { CreateSearchEnricherOptions, SearchEnricherConfig } from './enrichment/create-search-enricher.js';
