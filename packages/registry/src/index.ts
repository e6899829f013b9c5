export type { DeferMode, McpEntrySource, ToolApplyScope, ToolEntry } from './registry/tool-entry.js';
export { registry, ToolRegistry } from './registry/tool-registry.js';
export type { ToolRegistryFilter, ToolRegistryOptions } from './registry/tool-registry.js';

export { BUILTIN_TOOL_NAMES, isValidToolName } from './wire-names/tool-names.js';
export { assignMcpWireNames, mcpWireName } from './wire-names/mcp-wire-name.js';
export { assignServerSegments } from './wire-names/assign-server-segments.js';
export type { McpToolPair } from './wire-names/mcp-wire-name.js';

export { createCatalogReader } from './catalog/catalog-reader.js';
export type { CatalogRead, CatalogReader, ColdReason, CreateCatalogReaderOptions } from './catalog/catalog-reader.js';

export type { McpCallResult, McpToolCaller, McpToolCallRequest } from './mcp/mcp-tool-caller.js';
export { createMcpToolEntry } from './mcp/create-mcp-tool-entry.js';
export type { CreateMcpToolEntryOptions } from './mcp/create-mcp-tool-entry.js';
export { DEFAULT_TOOL_RESULT_MAX_BYTES } from './mcp/limit-tool-result.js';
export { withTextOnlyToolResults } from './mcp/mcp-tool-output.js';
export type { McpImage, McpMediaOutput } from './mcp/mcp-tool-output.js';
export { resolveAssistantMcpToolIds } from './mcp/resolve-assistant-mcp-tool-ids.js';
export { syncMcpToolsToRegistry } from './mcp/sync-mcp-tools-to-registry.js';
export type { SyncMcpToolsOptions, SyncMcpToolsResult } from './mcp/sync-mcp-tools-to-registry.js';
export { toolInputSchema } from './schema/tool-input-schema.js';
export type { ToolInputValidation } from './schema/validate-tool-input.js';

export { estimateToolTokens } from './exposition/estimate-tool-tokens.js';
export { createRunToolState } from './exposition/run-tool-state.js';
export type { RunToolState } from './exposition/run-tool-state.js';
export { applyDeferExposition } from './exposition/apply-defer-exposition.js';
export type { ApplyDeferExpositionOptions, DeferExposition } from './exposition/apply-defer-exposition.js';
export { buildDeferredToolsPrompt } from './exposition/build-deferred-tools-prompt.js';
export type { DeferredToolsPromptOptions } from './exposition/build-deferred-tools-prompt.js';
export type { NativeExposition, NativeToolSearch, ToolProviderOptions } from './exposition/native-tool-search.js';

export { applyMetaToolEffects } from './meta/apply-meta-tool-effects.js';
export type { MetaToolCallRecord } from './meta/apply-meta-tool-effects.js';
export { createMetaTools } from './meta/create-meta-tools.js';
export type { CreateMetaToolsOptions } from './meta/create-meta-tools.js';
export type {
  CreateToolExecOptions,
  ToolExecOutcome,
  ToolExecRequest,
  ToolExecSandbox,
} from './meta/create-tool-exec.js';
export type { DispatchRefusal, DispatchRefusalCode, DispatchToolCallOptions } from './meta/dispatch-tool-call.js';
export { searchFieldsOf, searchKeyOf, TOOL_SEARCH_STOP_WORDS, ToolSearchIndex } from './meta/tool-search-index.js';
export type {
  ToolSearchHit,
  ToolSearchIndexOptions,
  ToolSearchIndexStats,
  ToolSearchOptions,
} from './meta/tool-search-index.js';
export {
  RERANK_FEATURES,
  rerankFeatures,
  rerankScore,
  rerankTop,
  validateRerankModel,
} from './meta/tool-search-rerank.js';
export type { RerankFeature, RerankModel, RerankSource } from './meta/tool-search-rerank.js';
export { TOOL_SEARCH_RERANK_MODEL } from './meta/tool-search-rerank-weights.js';
export { createWordnetSynonyms } from './meta/wordnet-synonyms.js';
export type { WordnetSynonymsOptions } from './meta/wordnet-synonyms.js';
export type { GroupSuggestion } from './meta/suggest-groups.js';
export { catalogFreshness, serverFreshnessOf } from './catalog/catalog-freshness.js';
export type { ServerFreshness } from './catalog/catalog-freshness.js';
export { buildServerStatusPrompt } from './exposition/build-server-status-prompt.js';

export type { ApprovalGateContext } from './approval/is-approval-gated.js';

export { createToolCallRepair } from './repair/create-tool-call-repair.js';
export type { CreateToolCallRepairOptions, ToolCallRepairCandidate } from './repair/create-tool-call-repair.js';

// The embedder contract and the query cache live in @agentq/shared (kb_search embeds queries too);
// they are offered here too, beside the tool embedding code that uses them.
export { createQueryEmbedder } from '@agentq/shared';
export type { CreateQueryEmbedderOptions, Embedder } from '@agentq/shared';
// The vector record lives in @agentq/store; it is offered here too, beside the embedding code that uses it.
export { createToolVectorStore } from '@agentq/store';
export type { CreateToolVectorStoreOptions, ToolVectorStore } from '@agentq/store';
export { toolEmbeddingDigest, toolEmbeddingText } from './embedding/tool-embedding-text.js';
export { createCatalogToolEmbedding } from './embedding/embed-catalog-tools.js';
export type { EmbedCatalogToolsOptions, EmbedCatalogToolsResult } from './embedding/embed-catalog-tools.js';
// Description enrichment (AGENTQ_SEARCH_ENRICH_MODEL): example requests per tool text, stored like vectors.
export { createToolEnrichmentStore } from '@agentq/store';
export type { CreateToolEnrichmentStoreOptions, ToolEnrichmentStore } from '@agentq/store';
export { toolEnrichmentDigest, toolEnrichmentText } from './enrichment/tool-enrichment-text.js';
export { createToolEnricher } from './enrichment/create-tool-enricher.js';
export type {
  CreateToolEnricherOptions,
  ToolEnricher,
  ToolEnrichmentUsage,
} from './enrichment/create-tool-enricher.js';
export { createCatalogToolEnrichment, enrichCatalogTools } from './enrichment/enrich-catalog-tools.js';
export { createExamplesRefresher } from './enrichment/create-examples-refresher.js';
export type { CreateExamplesRefresherOptions, ExamplesRefresher } from './enrichment/create-examples-refresher.js';
export { refreshServerExamples } from './mcp/sync-mcp-tools-to-registry.js';
export type { ServerExamplesRefresh } from './mcp/sync-mcp-tools-to-registry.js';
export type {
  CatalogToolEnrichment,
  CreateCatalogToolEnrichmentOptions,
  EnrichCatalogToolsOptions,
  EnrichCatalogToolsResult,
} from './enrichment/enrich-catalog-tools.js';
