export { startAgentWorker } from './start-agent-worker.js';
export type { AgentWorker, AgentWorkerOptions } from './start-agent-worker.js';
export type { AgentWorkerTuning, ResolvedAgentWorkerTuning } from './worker-options.js';

export { createModelResolver } from './models/create-model-resolver.js';
export type { ModelResolver, ModelResolverOptions, ResolvedModel } from './models/create-model-resolver.js';
export type { ScriptedModelOptions } from './models/scripted-model.js';

export { McpClientPool } from './mcp/mcp-client-pool.js';
export type { McpClientPoolOptions } from './mcp/mcp-client-pool.js';

export { createRunProcessor } from './run/create-run-processor.js';
export type { RunProgress } from './run/run-progress.js';
export type { RunProcessorDependencies } from './run/run-processor-dependencies.js';
export { RunStore } from '@agentq/store';
export type { RecordedToolResult, RunFence, RunStoreOptions, ToolCallClaim } from '@agentq/store';
export { INTERRUPTED_TOOL_CALL } from './run/record-tool-executions.js';

export { approvalIdFor } from './approvals/approval-id.js';
export { createApprovalProcessor } from './approvals/create-approval-processor.js';
export type { ApprovalProcessorOptions } from './approvals/create-approval-processor.js';
export type { DecisionProcessorOptions } from './approvals/create-decision-processor.js';
export type { SweepDecidedApprovalsOptions } from './approvals/sweep-decided-approvals.js';
export { agentWorkerRole } from './agent-worker-role.js';
