// Placeholder until `npx tsx bench/search/train-reranker.ts --write` runs.
import type { RerankModel } from './tool-search-rerank.js';
import { RERANK_FEATURES } from './tool-search-rerank.js';

export const TOOL_SEARCH_RERANK_MODEL: RerankModel = {
  features: [...RERANK_FEATURES],
  mean: RERANK_FEATURES.map(() => 0),
  scale: RERANK_FEATURES.map(() => 1),
  weights: RERANK_FEATURES.map(() => 0),
  depth: 30,
};
