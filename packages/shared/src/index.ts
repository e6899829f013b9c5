export { AgentqError } from './errors/agentq-error.js';
export { ERROR_CODES, EXIT_CODES, errorCodeInfo } from './errors/error-codes.js';
export type { ErrorCode, ErrorCodeInfo } from './errors/error-codes.js';
export { isParkedError, isRetryable, parkedError, toBullmqError, withBullmqErrors } from './errors/to-bullmq-error.js';
export type { BullmqErrorContext } from './errors/to-bullmq-error.js';
export type { AgentqErrorOptions } from './errors/agentq-error.js';
export { NonRetryableError } from './errors/non-retryable-error.js';
export { RetryLaterError } from './errors/retry-later-error.js';
export type { RetryLaterErrorOptions } from './errors/retry-later-error.js';
export { ValidationError } from './errors/validation-error.js';
export type { ValidationIssue } from './errors/validation-error.js';

export { keyPrefix, untaggedPrefix } from './config/key-prefix.js';
export { defaultRunShardCount, MAX_RUN_SHARDS } from './config/run-shard-count.js';
export { configVariables } from './config/config-variables.js';
export type { ConfigVariable } from './config/config-variables.js';
export { apiBaseUrlOf, loadConfig, secretValuesOf } from './config/load-config.js';
export type { Config } from './config/load-config.js';
export { API_SCOPES, DEFAULT_TOKEN_NAME } from './config/parse-api-tokens.js';
export type { ApiScope, ApiToken } from './config/parse-api-tokens.js';

export { isOfRunIncarnation, newRunIncarnation, runIncarnationOf } from './runs/run-incarnation.js';
export { answeredToolCallIds, summarizeToolCalls } from './runs/summarize-tool-calls.js';

export { QUEUE_NAMES } from './queues/queue-names.js';
export type { QueueName } from './queues/queue-names.js';
export { defaultRunJobOptions, kbIngestJobOptions, refreshJobOptions } from './queues/default-job-options.js';

export { isAlwaysAsk, serverDefinitionSchema, serverDisplayName, serverIdSchema } from './schemas/server-definition.js';
export type {
  ServerAuth,
  ServerDefinition,
  ServerDefinitionInput,
  ServerTransport,
} from './schemas/server-definition.js';
export {
  catalogCacheScopeSchema,
  catalogEntrySchema,
  catalogReadBySchema,
  AUTH_CATALOG_STATES,
  isAuthCatalogState,
  catalogStatusSchema,
  catalogToolSchema,
  catalogUpdatedEventSchema,
  catalogVersionSchema,
  MAX_SKIPPED_TOOLS_SHOWN,
  objectJsonSchemaSchema,
} from './schemas/catalog.js';
export type {
  CatalogCacheScope,
  CatalogEntry,
  CatalogReadBy,
  CatalogState,
  CatalogStatus,
  CatalogTool,
  CatalogUpdatedEvent,
} from './schemas/catalog.js';
export { refreshJobSchema, refreshReasonSchema, serverChangeEventSchema } from './schemas/refresh-job.js';
export type { RefreshJob, RefreshReason, ServerChangeEvent } from './schemas/refresh-job.js';
export { isModelProvider, MODEL_PROVIDERS } from './schemas/model-providers.js';
export type { ModelProvider, ToolExposition } from './schemas/model-providers.js';
export {
  assistantSchema,
  createRunSpecSchema,
  defaultRunSpecLimits,
  knowledgeBaseNameSchema,
  runSpecLimitsOf,
  runSpecSchema,
} from './schemas/run-spec.js';
export type {
  ApprovalPolicy,
  Assistant,
  AssistantSettings,
  RunSpec,
  RunSpecInput,
  RunSpecLimits,
  RunSpecSchema,
  ScriptStep,
  WebSearchProviderName,
} from './schemas/run-spec.js';
export type { ProvenanceIssue } from './schemas/input-message-provenance.js';
export { runResultSchema } from './schemas/run-result.js';
export type { RunResult, RunWarning, StepRecord, ToolCallRecord, Usage } from './schemas/run-result.js';
export {
  approvalJobSchema,
  approvalResultSchema,
  decisionInputSchema,
  decisionPathSchema,
  decisionRecordSchema,
  RECORD_ID_MAX_LENGTH,
  recordIdSchema,
} from './schemas/approval.js';
export type { ApprovalJob, ApprovalResult, DecisionInput, DecisionPath, DecisionRecord } from './schemas/approval.js';
export { checkElicitationContent, checkElicitationFields } from './elicitation/check-elicitation-content.js';
export {
  elicitationRequestSchema,
  elicitationResponseRecordSchema,
  elicitationResponseSchema,
  elicitationResultSchema,
  elicitationValueSchema,
} from './schemas/elicitation.js';
export type {
  ElicitationRequestRecord,
  ElicitationResponse,
  ElicitationResponseRecord,
  ElicitationResult,
  ElicitationValue,
} from './schemas/elicitation.js';
export {
  kbChunkSchema,
  kbDefinitionSchema,
  kbDocumentSchema,
  kbIngestJobSchema,
  kbIngestResultSchema,
  kbManifestSchema,
  kbNameSchema,
  kbSourceOriginSchema,
  kbSourceUrlSchema,
  kbUpdatedEventSchema,
} from './schemas/kb.js';
export type {
  KbChunk,
  KbDefinition,
  KbDocument,
  KbDocumentKind,
  KbIngestJob,
  KbIngestResult,
  KbManifest,
  KbSource,
  KbSourceOrigin,
  KbUpdatedEvent,
} from './schemas/kb.js';
export {
  recordedToolResultSchema,
  runCheckpointSchema,
  runHeadSchema,
  runLogMessageSchema,
  runLogStepSchema,
} from './schemas/run-checkpoint.js';
export type { PendingApproval, RecordedToolResult, RunCheckpoint, RunHead } from './schemas/run-checkpoint.js';

export { definitionHash } from './servers/definition-hash.js';
export { currentCatalogStatus, SERVER_CATALOG_STATES, serverCatalogStateOf } from './catalog/server-catalog-state.js';
export type { ServerCatalogState } from './catalog/server-catalog-state.js';
export { resolveSecrets, resolveSecretSetting } from './servers/resolve-secrets.js';
export { maskSecretValues, maskSecretsDeep, maskServerError, SECRET_MASK } from './servers/mask-secret-values.js';
export { allowListedSecretValues, createSecretValueSet } from './servers/secret-value-set.js';
export type { SecretValueSet } from './servers/secret-value-set.js';
export type {
  ResolvedServerDefinition,
  ResolveSecretPlaceholdersOptions,
  ResolveSecretSettingOptions,
  ResolveSecretsOptions,
} from './servers/resolve-secrets.js';
export type { SecretPolicy } from './servers/secret-policy.js';
export { checkServerDefinition, serverPolicyFromEnv, serverPolicyOf } from './servers/server-policy.js';
export type { PlaceholderUse, ServerOrigin, ServerPolicy } from './servers/server-policy.js';
export { readRunSpecFile } from './schemas/read-run-spec-file.js';

export { digestOf } from './json/canonical-json.js';
export { matchGlob } from './patterns/match-glob.js';
export { revealHiddenCharacters } from './text/reveal-hidden-characters.js';
export { parseJsonOrYaml } from './json/parse-json-or-yaml.js';
export { parseWith, safeParseJson } from './json/safe-parse-json.js';
export type { SafeParseJsonResult } from './json/safe-parse-json.js';

export { createLogger, silentLogger } from './logging/create-logger.js';
export type { CreateLoggerOptions, SecretRegistry } from './logging/create-logger.js';
export type { LogContext, Logger } from './logging/logger.js';

export { parseToolId, toolId } from './tools/tool-id.js';
export { TOOL_SEARCH_CALL_NAMES, toolSearchCallSummary, type ToolSearchCallSummary } from './tools/tool-search-call.js';

export { checkFetchTarget } from './net/check-fetch-target.js';
export { maskRedisUrl, parseRedisUrl } from './net/parse-redis-url.js';
export type { CheckFetchTargetOptions, FetchTargetLookup } from './net/check-fetch-target.js';
export { createGuardedFetch } from './net/create-guarded-fetch.js';
export { startHealthListener } from './net/start-health-listener.js';
export { listenFailed } from './net/listen-failed.js';
export { assertPortsFree, type ListenTarget } from './net/port-in-use.js';
export { runRole, runRoleProcess } from './roles/run-role.js';
export type { RoleContext, RoleDefinition, RunningRole, RunRoleOptions } from './roles/run-role.js';
export { waitForShutdown } from './roles/wait-for-shutdown.js';
export type { HealthListener, HealthListenerOptions } from './net/start-health-listener.js';
export type { GuardedFetch, GuardedFetchOptions, GuardedRequestInit } from './net/create-guarded-fetch.js';
export { assertSecretHosts, dropSecretHeaders } from './net/egress-secret.js';
export type { EgressSecret } from './net/egress-secret.js';
export { hostPatternOf } from './net/is-allowed-host.js';
export { capResponseBody, readCappedBody } from './net/read-capped-body.js';
export type { CappedBodyOptions } from './net/read-capped-body.js';

export {
  contextFromTrace,
  traceContextFromSpanContext,
  traceContextOf,
  withoutTrace,
} from './telemetry/trace-context.js';
export type { TraceContext } from './telemetry/trace-context.js';
export {
  activeContext,
  activeSpan,
  agentqTracer,
  recordSpanError,
  ROOT_CONTEXT,
  SpanKind,
  withSpan,
} from './telemetry/agentq-tracer.js';
export type { Attributes, Context, Span, Tracer, WithSpanOptions } from './telemetry/agentq-tracer.js';
export { contextWithSpan, reparentingTracer } from './telemetry/reparenting-tracer.js';
export type { ReparentingTracerOptions } from './telemetry/reparenting-tracer.js';
export { isTracingActive, startTelemetry } from './telemetry/start-telemetry.js';
export type { StartTelemetryOptions, Telemetry } from './telemetry/start-telemetry.js';
export type { KbListing, KbSearchHit, KnowledgeBaseReader } from './kb/knowledge-base-reader.js';

export { analyzeText, normalizeName } from './search/analyze-text.js';
export type { AnalyzerSide } from './search/analyze-text.js';
export { bm25Idf, bm25LengthNorm, bm25TermScore } from './search/bm25.js';
export { Bm25Index } from './search/bm25-index.js';
export type { Bm25Match } from './search/bm25-index.js';
export { termCounts } from './search/term-counts.js';
export type { Embedder } from './embedding/embedder.js';
export { createQueryEmbedder } from './embedding/create-query-embedder.js';
export type { CreateQueryEmbedderOptions } from './embedding/create-query-embedder.js';
export {
  cosineSimilarity,
  dotProduct,
  fuseRankings,
  normalizeInPlace,
  RRF_K,
  squaredNorm,
} from './search/vector-fusion.js';
