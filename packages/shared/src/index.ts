export { AgentqError } from './errors/agentq-error.js';
export type { AgentqErrorOptions } from './errors/agentq-error.js';
export { NonRetryableError } from './errors/non-retryable-error.js';
export { RetryLaterError } from './errors/retry-later-error.js';
export type { RetryLaterErrorOptions } from './errors/retry-later-error.js';
export { ValidationError } from './errors/validation-error.js';
export type { ValidationIssue } from './errors/validation-error.js';

export { configVariables } from './config/config-variables.js';
export type { ConfigVariable } from './config/config-variables.js';
export { loadConfig, secretValuesOf } from './config/load-config.js';
export type { Config } from './config/load-config.js';

export { createRedisConnection, waitForRedis } from './redis/create-redis-connection.js';
export type { CreateRedisConnectionOptions, RedisConnection } from './redis/create-redis-connection.js';
export { keyNames, keyPrefix } from './redis/keys.js';
export type { KeyNames } from './redis/keys.js';

export { QUEUE_NAMES } from './queues/queue-names.js';
export type { QueueName } from './queues/queue-names.js';
export { defaultRunJobOptions, refreshJobOptions } from './queues/default-job-options.js';
export {
  isForcedRefreshReason,
  refreshDeduplicationId,
  refreshLockKey,
  requestRefresh,
} from './queues/request-refresh.js';
export type { RefreshQueue, RefreshRequest } from './queues/request-refresh.js';

export {
  isAlwaysAsk,
  serverDefinitionSchema,
  serverDisplayName,
  serverIdSchema,
  serverTimeoutsSchema,
  transportSchema,
} from './schemas/server-definition.js';
export type { ServerDefinition, ServerDefinitionInput, ServerTransport } from './schemas/server-definition.js';
export {
  catalogEntrySchema,
  catalogStateSchema,
  catalogStatusSchema,
  catalogToolSchema,
  catalogUpdatedEventSchema,
  objectJsonSchemaSchema,
} from './schemas/catalog.js';
export type { CatalogEntry, CatalogState, CatalogStatus, CatalogTool, CatalogUpdatedEvent } from './schemas/catalog.js';
export { refreshJobSchema, refreshReasonSchema, serverChangeEventSchema } from './schemas/refresh-job.js';
export type { RefreshJob, RefreshReason, ServerChangeEvent } from './schemas/refresh-job.js';
export {
  approvalPolicySchema,
  assistantSchema,
  createRunSpecSchema,
  defaultRunSpecLimits,
  inputMessageSchema,
  runSpecLimitsOf,
  mcpToolIdSchema,
  modelIdSchema,
  modelSettingsSchema,
  runSpecSchema,
  scriptStepSchema,
} from './schemas/run-spec.js';
export type {
  ApprovalPolicy,
  Assistant,
  RunSpec,
  RunSpecInput,
  RunSpecLimits,
  RunSpecSchema,
  ScriptStep,
} from './schemas/run-spec.js';
export { findProvenanceIssues } from './schemas/input-message-provenance.js';
export type { ProvenanceIssue } from './schemas/input-message-provenance.js';
export { runResultSchema, stepRecordSchema, toolCallRecordSchema, usageSchema } from './schemas/run-result.js';
export type { RunResult, StepRecord, ToolCallRecord, Usage } from './schemas/run-result.js';
export {
  approvalJobSchema,
  approvalResultSchema,
  decisionInputSchema,
  decisionRecordSchema,
} from './schemas/approval.js';
export type { ApprovalJob, ApprovalResult, DecisionInput, DecisionRecord } from './schemas/approval.js';
export { pendingApprovalSchema, runCheckpointSchema } from './schemas/run-checkpoint.js';
export type { PendingApproval, RunCheckpoint } from './schemas/run-checkpoint.js';

export { definitionHash } from './servers/definition-hash.js';
export { resolveSecrets } from './servers/resolve-secrets.js';
export { maskSecretValues, SECRET_MASK } from './servers/mask-secret-values.js';
export type { ResolvedServerDefinition } from './servers/resolve-secrets.js';
export { ServerStore, parseServerChangeEvent, readServersFile } from './servers/server-store.js';
export type { CorruptServerEntry, ServerStoreOptions } from './servers/server-store.js';

export { canonicalJson, digestOf } from './json/canonical-json.js';
export { matchGlob, matchesAnyGlob } from './patterns/match-glob.js';
export { parseWith, safeParseJson } from './json/safe-parse-json.js';
export type { SafeParseJsonResult } from './json/safe-parse-json.js';

export { createLogger, silentLogger } from './logging/create-logger.js';
export type { CreateLoggerOptions, SecretRegistry } from './logging/create-logger.js';
export type { LogContext, Logger } from './logging/logger.js';

export { parseToolId, toolId } from './tools/tool-id.js';

export {
  pendingApprovalIds,
  queueApprovalRegistrations,
  readApprovalRecord,
  readApprovalRecords,
  recordDecision,
  registerApprovalRequests,
  settleApproval,
} from './approvals/approval-records.js';
export type {
  ApprovalOutcome,
  ApprovalRecord,
  ApprovalRecordsOptions,
  EvalQueue,
} from './approvals/approval-records.js';

export { checkFetchTarget, isPrivateAddress } from './net/check-fetch-target.js';
export type { CheckFetchTargetOptions } from './net/check-fetch-target.js';
