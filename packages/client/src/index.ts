export { createAgentqClient } from './create-agentq-client.js';
export type { AgentqClient, AgentqClientOptions, ServerWriteOptions } from './create-agentq-client.js';

export { RUN_JOB_NAME, parsedRunSpecSchemaOf } from './runs/enqueue-run.js';
export type { EnqueueRunOptions, EnqueuedRun, ParsedRunSpec, ParsedRunSpecSchema } from './runs/enqueue-run.js';
export {
  RUN_ID_MAX_LENGTH,
  SCHEDULED_RUN_ID_MAX_LENGTH,
  customRunIdSchema,
  newRunId,
  runIdSchema,
} from './runs/run-id.js';
export type {
  RunInfo,
  RunPendingApproval,
  RunPendingElicitation,
  RunProgress,
  RunState,
  RunStepInfo,
} from './runs/get-run.js';
export type { WaitForRunOptions } from './runs/wait-for-run.js';
export type { RunCallStatus, RunTimeline, RunTimelineCall, RunTimelineStep } from './runs/get-run-timeline.js';
export { runTimingOf } from './runs/run-timing.js';
export type { RunTiming } from './runs/run-timing.js';
export { LISTED_RUN_STATES, promptOfRun } from './runs/list-runs.js';
export { runDurationMs } from './runs/run-duration.js';
export type { ListRunsInput, RunList, RunSummary } from './runs/list-runs.js';
export type { CancelledRun } from './runs/cancel-run.js';

export { scheduleIdSchema, scheduleTimingSchema } from './schedules/schedule-input.js';
export type { ScheduleTiming } from './schedules/schedule-input.js';
export type { Schedule, ScheduleRunInput } from './schedules/schedule-run.js';

export type { ServerInfo } from './servers/manage-servers.js';
export type { CatalogSnapshotView, CatalogView } from './catalog/get-catalog.js';
export {
  KB_INGEST_JOB_NAME,
  kbSourceInputSchema,
  kbSourcesInputSchema,
  MAX_KB_SOURCES_PER_CALL,
} from './kbs/manage-kbs.js';
export type { AddKbSourceOptions, AddedKbSource, KbInfo, KbIngestInfo, KbSourceInput } from './kbs/manage-kbs.js';

export { decide, getApproval, listPendingApprovals, osUserName, promoteApproval } from './approvals/index.js';
export type { ApprovalContext, ApprovalInfo, ClientDecisionInput, PendingApprovalInfo } from './approvals/index.js';
export { answerElicitation, getElicitation, listPendingElicitations } from './elicitations/elicitations.js';
export type { ElicitationAnswerInput, ElicitationInfo } from './elicitations/elicitations.js';
