/**
 * The owner of every Redis record of agentq: key names, scripts and one store per record.
 * Nothing outside this package spells a key or sends a Redis command.
 */
export {
  createRedisConnection,
  isClusterConnection,
  parseRedisUrl,
  waitForRedis,
} from './redis/create-redis-connection.js';
export type { CreateRedisConnectionOptions, RedisConnection } from './redis/create-redis-connection.js';
export { catalogEntryDigest } from './catalog/catalog-entry-digest.js';
export { createToolVectorStore, fillMissingVectors, TOOL_VECTOR_TTL_MS } from './catalog/tool-vectors.js';
export {
  createToolEnrichmentStore,
  MAX_TOOL_EXAMPLE_CHARS,
  MAX_TOOL_EXAMPLES,
  parseToolsEnrichedMessage,
  publishToolsEnriched,
  toolExamplesSchema,
} from './catalog/tool-enrichments.js';
export type { CreateToolEnrichmentStoreOptions, ToolEnrichmentStore } from './catalog/tool-enrichments.js';
export { takeEnrichmentCall } from './enrichment/enrichment-budget.js';
export type { EnrichmentCallGrant } from './enrichment/enrichment-budget.js';
export type {
  CreateToolVectorStoreOptions,
  FillMissingVectorsResult,
  ToolVectorStore,
} from './catalog/tool-vectors.js';
export { CatalogStore } from './catalog/catalog-store.js';
export type {
  CatalogReaderReply,
  CatalogRecord,
  CatalogSnapshot,
  CatalogStoreOptions,
  CatalogWriteBase,
  CatalogWriteOutcome,
  CatalogWritePlan,
  KnownCatalogEntry,
  ServerCapability,
} from './catalog/catalog-store.js';
export { Lease } from './leases/lease.js';
export type { LeaseOptions } from './leases/lease.js';
export { keyNames, refreshLockKey, runStateKeys } from './keys.js';
export { pipelineBySlot } from './redis/pipeline-by-slot.js';
export { subscribeToChannels } from './redis/subscribe-to-channels.js';
export type { ChannelSubscription } from './redis/subscribe-to-channels.js';
export type { PipelineReply, SlotCommand } from './redis/pipeline-by-slot.js';
export { approvalIdFor, approvalShardIndex, RunShardRouter } from './redis/run-shards.js';
export type { RunShard, RunShardRouterOptions } from './redis/run-shards.js';
export { deleteRunState, expireRunState } from './runs/run-state-lifecycle.js';
export type { RunStateOptions } from './runs/run-state-lifecycle.js';
export { RunStore } from './runs/run-store.js';
export type {
  CheckpointSideWrites,
  CheckpointWrite,
  RecordedToolResult,
  RunFence,
  RunStoreOptions,
  ToolCallClaim,
} from './runs/run-store.js';
export type { KeyNames } from './keys.js';
export { isForcedRefreshReason, refreshAnswersLaterRequests, requestRefresh } from './queues/request-refresh.js';
export { readFinishedJobs, type FinishedJobEntry } from './queues/finished-jobs.js';
export type { RefreshQueue, RefreshRequest } from './queues/request-refresh.js';
export { ServerStore, parseServerChangeEvent } from './servers/server-store.js';
export { ServerSessions } from './servers/server-sessions.js';
export { CachedSessionGenerations } from './servers/cached-session-generations.js';
export type { CachedSessionGenerationsOptions } from './servers/cached-session-generations.js';
export type { SessionGenerationReader } from './servers/server-sessions.js';
export type { CorruptServerEntry, PutServerOptions, ServerStoreOptions } from './servers/server-store.js';
export {
  approvalsOfGoneRuns,
  inspectApprovalRecords,
  pendingApprovalIds,
  queueApprovalRegistrations,
  readApprovalRecord,
  readApprovalRecords,
  recordDecision,
  registerApprovalRequests,
  runGoneDecision,
  settleApproval,
} from './approvals/approval-records.js';
export { setAsideUnreadablePending } from './pending/unreadable-records.js';
export type { UnreadableProblem, UnreadableRecord } from './pending/unreadable-records.js';
export type { ApprovalOutcome, ApprovalRecord, ApprovalRecordsOptions } from './approvals/approval-records.js';
export {
  closeElicitationOfEndedRun,
  elicitationOfToolCall,
  inspectElicitationRecords,
  listPendingElicitations,
  pendingElicitationIds,
  readElicitation,
  registerElicitation,
  releaseElicitationAnswer,
  settleElicitation,
  takeElicitationAnswer,
  untakenAnswersOfStep,
} from './elicitations/elicitation-records.js';
export type {
  ElicitationOutcome,
  ElicitationRecord,
  ElicitationRecordsOptions,
} from './elicitations/elicitation-records.js';
export { unansweredElicitationsOfRun } from './elicitations/unanswered-elicitations-of-run.js';
export { KnowledgeBaseStore } from './kb/knowledge-base-store.js';
export type {
  ChunkSetRead,
  CurrentManifest,
  KnowledgeBaseStoreOptions,
  ManifestRead,
} from './kb/knowledge-base-store.js';
export { redisAnswers } from './redis/redis-answers.js';
export { redisTime } from './redis/redis-time.js';
export { inspectRedis } from './redis/inspect-redis.js';
export type { RedisInspection } from './redis/inspect-redis.js';
export {
  countLiveWarmers,
  pruneDeadWarmers,
  readWarmerHealth,
  warmerRecordSchema,
  writeWarmerRecord,
} from './warmers/warmer-health.js';
export type { WarmerHealth, WarmerRecord } from './warmers/warmer-health.js';
export { parseRefreshDelegation, RefreshDelegation } from './warmers/refresh-delegation.js';
export { AdminSessionRecords } from './admin/admin-session-records.js';
export type { AdminSessionRecord } from './admin/admin-session-records.js';
export { OAuthTokenStore } from './oauth/oauth-token-store.js';
export type { OAuthKeyNames, OAuthTokenStoreOptions, StoredOAuthState } from './oauth/oauth-token-store.js';
