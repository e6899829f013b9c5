export { startAgentWorker } from './start-agent-worker.js';
export type { AgentWorker, AgentWorkerOptions } from './start-agent-worker.js';
export { resolveWorkerTuning } from './worker-options.js';
export type { AgentWorkerTuning, ResolvedAgentWorkerTuning } from './worker-options.js';

export { createModelResolver } from './models/create-model-resolver.js';
export type { ModelResolver, ModelResolverOptions, ResolvedModel } from './models/create-model-resolver.js';
export { createScriptedModel, scriptedToolCallId } from './models/scripted-model.js';
export type { ScriptedModelOptions } from './models/scripted-model.js';
export { DEMO_SERVER_ID, demoFinalText, demoScript } from './models/demo-script.js';
export { contextWindowOf, FALLBACK_CONTEXT_WINDOW, knownContextWindows } from './models/known-models.js';

export { McpClientPool } from './mcp/mcp-client-pool.js';
export type { McpClientPoolOptions } from './mcp/mcp-client-pool.js';

export { createRunProcessor } from './run/create-run-processor.js';
export type { RunProgress } from './run/report-progress.js';
export type { RunProcessorDependencies } from './run/run-processor-dependencies.js';
export { RunStore } from '@agentq/store';
export type { RecordedToolResult, RunFence, RunStoreOptions, ToolCallClaim } from '@agentq/store';
export { INTERRUPTED_TOOL_CALL } from './run/record-tool-executions.js';
export { applyRunApprovalPolicy, matchesApprovalPattern } from './run/run-approval-policy.js';

export { approvalIdFor } from './approvals/approval-id.js';
export { createApprovalProcessor } from './approvals/create-approval-processor.js';
export type { ApprovalProcessorOptions } from './approvals/create-approval-processor.js';
export { createDecisionProcessor } from './approvals/create-decision-processor.js';
export type { DecisionProcessorOptions } from './approvals/create-decision-processor.js';
export { sweepDecidedApprovals } from './approvals/sweep-decided-approvals.js';
export type { SweepDecidedApprovalsOptions } from './approvals/sweep-decided-approvals.js';
export { agentWorkerRole } from './agent-worker-role.js';
