export { labelOf } from './registry/tool-entry.js';
export type { DeferMode, McpEntrySource, ToolApplyScope, ToolEntry } from './registry/tool-entry.js';
export { registry, ToolRegistry } from './registry/tool-registry.js';
export type { ToolRegistryFilter, ToolRegistryOptions } from './registry/tool-registry.js';

export {
  BUILTIN_TOOL_NAMES,
  isValidToolName,
  MAX_TOOL_NAME_LENGTH,
  META_TOOL_NAMES,
  TOOL_NAME_PATTERN,
} from './wire-names/tool-names.js';
export { toCamelSegment } from './wire-names/to-camel-segment.js';
export { assignMcpWireNames, mcpWireName, parseMcpWireName } from './wire-names/mcp-wire-name.js';
export { assignServerSegments } from './wire-names/assign-server-segments.js';
export type { McpToolPair } from './wire-names/mcp-wire-name.js';

export { createCatalogReader } from './catalog/catalog-reader.js';
export type { CatalogRead, CatalogReader, ColdReason, CreateCatalogReaderOptions } from './catalog/catalog-reader.js';

export type { McpCallResult, McpToolCaller, McpToolCallRequest } from './mcp/mcp-tool-caller.js';
export { createMcpToolEntry, oneLineBlurb } from './mcp/create-mcp-tool-entry.js';
export type { CreateMcpToolEntryOptions } from './mcp/create-mcp-tool-entry.js';
export { summarizeMcpResult } from './mcp/summarize-mcp-result.js';
export {
  DEFAULT_MEDIA_BUDGET_BYTES,
  isMcpMediaOutput,
  mcpToolModelOutput,
  mcpToolOutput,
  withTextOnlyToolResults,
} from './mcp/mcp-tool-output.js';
export type { McpImage, McpMediaOutput } from './mcp/mcp-tool-output.js';
export { resolveAssistantMcpToolIds } from './mcp/resolve-assistant-mcp-tool-ids.js';
export { syncMcpToolsToRegistry } from './mcp/sync-mcp-tools-to-registry.js';
export type { SyncMcpToolsOptions, SyncMcpToolsResult } from './mcp/sync-mcp-tools-to-registry.js';
export { toolInputSchema } from './schema/tool-input-schema.js';
export { validateToolInput } from './schema/validate-tool-input.js';
export type { ToolInputValidation } from './schema/validate-tool-input.js';

export { estimateToolDefinitionTokens, estimateToolTokens, toolJsonSchema } from './exposition/estimate-tool-tokens.js';
export {
  DEFAULT_CONTEXT_WINDOW,
  DEFER_THRESHOLD_RATIO,
  deferThreshold,
  META_TOOLS_OVERHEAD_TOKENS,
  MIN_AUTO_DEFER_COUNT,
  shouldDefer,
} from './exposition/should-defer.js';
export { createRunToolState, markInspected } from './exposition/run-tool-state.js';
export type { RunToolState } from './exposition/run-tool-state.js';
export { applyDeferExposition } from './exposition/apply-defer-exposition.js';
export type { ApplyDeferExpositionOptions, DeferExposition } from './exposition/apply-defer-exposition.js';
export { buildDeferredToolsPrompt } from './exposition/build-deferred-tools-prompt.js';
export type { DeferredToolsPromptOptions } from './exposition/build-deferred-tools-prompt.js';
export { exposeNatively, mergeProviderOptions } from './exposition/native-tool-search.js';
export type { NativeExposition, NativeToolSearch, ToolProviderOptions } from './exposition/native-tool-search.js';

export { applyMetaToolEffects } from './meta/apply-meta-tool-effects.js';
export type { MetaToolCallRecord } from './meta/apply-meta-tool-effects.js';
export { createMetaTools, MAX_SEARCH_LIMIT } from './meta/create-meta-tools.js';
export type { CreateMetaToolsOptions } from './meta/create-meta-tools.js';
export { createToolExec, MAX_EXEC_SIGNATURE_CHARS } from './meta/create-tool-exec.js';
export type {
  CreateToolExecOptions,
  ToolExecOutcome,
  ToolExecRequest,
  ToolExecSandbox,
} from './meta/create-tool-exec.js';
export { dispatchToolCall, isDispatchRefusal } from './meta/dispatch-tool-call.js';
export type { DispatchRefusal, DispatchRefusalCode, DispatchToolCallOptions } from './meta/dispatch-tool-call.js';
export { renderToolSignature, MAX_SIGNATURE_DEPTH } from './meta/render-tool-signature.js';
export {
  DEFAULT_SEARCH_LIMIT,
  searchFieldsOf,
  searchKeyOf,
  TOOL_SEARCH_STOP_WORDS,
  ToolSearchIndex,
} from './meta/tool-search-index.js';
export type {
  ToolSearchHit,
  ToolSearchIndexOptions,
  ToolSearchIndexStats,
  ToolSearchOptions,
} from './meta/tool-search-index.js';
export { createWordnetSynonyms } from './meta/wordnet-synonyms.js';
export type { WordnetSynonymsOptions } from './meta/wordnet-synonyms.js';
export { suggestGroups } from './meta/suggest-groups.js';
export type { GroupSuggestion } from './meta/suggest-groups.js';
export { catalogFreshness, serverFreshnessOf, staleToolNote } from './catalog/catalog-freshness.js';
export type { ServerFreshness } from './catalog/catalog-freshness.js';
export { buildServerStatusPrompt } from './exposition/build-server-status-prompt.js';

export { isApprovalGated, mayNeedApproval } from './approval/is-approval-gated.js';
export type { ApprovalGateContext } from './approval/is-approval-gated.js';

export { createToolCallRepair } from './repair/create-tool-call-repair.js';
export type { CreateToolCallRepairOptions, ToolCallRepairCandidate } from './repair/create-tool-call-repair.js';

export { createEmbedder } from './embedding/create-embedder.js';
export type { CreateEmbedderOptions, Embedder, EmbedderConfig } from './embedding/create-embedder.js';
export { createQueryEmbedder } from './embedding/create-query-embedder.js';
export type { CreateQueryEmbedderOptions } from './embedding/create-query-embedder.js';
// The vector record lives in @agentq/store; it is offered here too, beside the embedding code that uses it.
export { createToolVectorStore, TOOL_VECTOR_TTL_MS } from '@agentq/store';
export type { CreateToolVectorStoreOptions, ToolVectorStore } from '@agentq/store';
export { toolEmbeddingDigest, toolEmbeddingText } from './embedding/tool-embedding-text.js';
export { createCatalogToolEmbedding, embedCatalogTools } from './embedding/embed-catalog-tools.js';
export type { EmbedCatalogToolsOptions, EmbedCatalogToolsResult } from './embedding/embed-catalog-tools.js';
