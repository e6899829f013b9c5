import {
  AgentqError,
  approvalJobSchema,
  isOfRunIncarnation,
  parseWith,
  runIncarnationOf,
  runResultSchema,
  type DecisionRecord,
  type RunCheckpoint,
  type RunResult,
  type RunSpec,
} from '@agentq/shared';
import { readApprovalRecords, unansweredElicitationsOfRun } from '@agentq/store';
import type { Job } from 'bullmq';
import type { ClientContext } from '../client-context.js';
import { findRun, type FoundRun } from './find-run.js';
import { runIdSchema } from './run-id.js';

/**
 * Where a run is:
 * - `waiting`: queued, not picked up yet;
 * - `active`: a worker is running it;
 * - `delayed`: waiting to retry after an infrastructure failure;
 * - `waiting-approval`: parked until its pending approvals are decided or expire;
 * - `waiting-input`: parked on a question an MCP server put to a person during a tool call (an
 *   elicitation, server policy `ask`) until it is answered or expires;
 * - `completed` / `failed`: finished.
 *
 * A parked run is `waiting-approval` while its checkpoint lists approvals, and `waiting-input`
 * otherwise: only approvals and elicitations park a run, and approvals are always in the
 * checkpoint. Should a run ever wait on both, it reads `waiting-approval` and lists both.
 */
export type RunState =
  'waiting' | 'active' | 'delayed' | 'waiting-approval' | 'waiting-input' | 'completed' | 'failed' | 'unknown';

/** One tool call a parked run is waiting on. */
export interface RunPendingApproval {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  /** The MCP server the call goes to, once the approval job exists; absent for builtin tools. */
  serverId?: string;
  /** Arguments as the approver sees them, once the approval job exists. */
  input?: unknown;
  requestedAt?: number;
  expiresAt?: number;
  /** Set once decided, before the run has picked the decision up: who, when and through which path. */
  decision?: DecisionRecord;
}

/**
 * One question a parked run is waiting on: answer it with `agentq elicitations answer <id>` or
 * `POST /v1/elicitations/{id}/answer`.
 */
export interface RunPendingElicitation {
  elicitationId: string;
  /** The tool call that was running when the server asked. */
  toolCallId: string;
  toolName: string;
  serverId: string;
  /** The server's question to the person. */
  message: string;
  requestedAt: number;
  expiresAt: number;
}

/** Progress a worker reports while it runs. */
export interface RunProgress {
  step?: number;
  lastTool?: string;
  status?: string;
  [key: string]: unknown;
}

/** One step a run took, with the catalog versions it was shown (`agentq catalog <server> --version`). */
export interface RunStepInfo {
  step: number;
  /** When the step was recorded, epoch ms (absent on steps recorded before it was kept). */
  at?: number;
  /** `serverId → catalog version` of the tools the model was shown (absent before runs were pinned). */
  catalogVersion?: Record<string, string>;
}

/** A run as `getRun` reports it. */
export interface RunInfo {
  runId: string;
  state: RunState;
  spec: RunSpec | undefined;
  progress: RunProgress;
  /** Set when `state` is `completed`. */
  result?: RunResult;
  /** Set when `state` is `failed`. */
  error?: { message: string };
  attemptsMade: number;
  /** When the run was enqueued (its job's creation), epoch ms. */
  createdAt: number;
  /**
   * When the latest processing slice began (BullMQ's `processedOn`): each resume after an approval
   * resets it, so it is not the run's first start. For the run's whole duration see
   * `RunTimeline.timing`.
   */
  startedAt?: number;
  /** When the run finished, epoch ms. */
  finishedAt?: number;
  pendingApprovals: RunPendingApproval[];
  /** Unanswered questions of a parked run, soonest expiry first (see `waiting-input`). */
  pendingElicitations: RunPendingElicitation[];
  /** The steps the run has recorded so far, each with its catalog versions. */
  steps: RunStepInfo[];
}

/**
 * Reads a run's state, progress, result or error, and pending approvals and questions. `NOT_FOUND`
 * when unknown.
 */
export async function getRun(context: ClientContext, runId: string): Promise<RunInfo> {
  return (await readRun(context, runId)).run;
}

/**
 * {@link getRun}'s reading, with the incarnation of the run the job holds (`runIncarnationOf`):
 * what the run's checkpoint and journal entries are checked against, so that state an earlier run
 * under the same id left behind is never shown as this run's.
 */
export async function readRun(context: ClientContext, runId: string): Promise<{ run: RunInfo; incarnation: string }> {
  parseWith(runIdSchema, runId, 'run id');
  // State first, then the job and the checkpoint, then the state again: read the other way round, a
  // run finishing in between would look completed with the stale (empty) return value of its active
  // snapshot, and one resuming in between would look parked with its checkpoint already rewritten.
  // A state that moved under the reads is read again (a few times: a run moves on within steps).
  for (let attempt = 1; ; attempt += 1) {
    const found = await findRun(context, runId);
    const job = found ? await found.queue.getJob(runId) : undefined;
    if (!found || !job)
      throw new AgentqError({ code: 'NOT_FOUND', field: 'runId', message: `Run ${runId} does not exist` });
    const stored = await context.runStoreOf(found.shard).read(runId);
    const settled = (await found.queue.getJobState(runId)) === found.state;
    if (settled || attempt >= READ_RUN_ATTEMPTS) return await describeRun(context, { runId, found, job, stored });
  }
}

/** How many times {@link readRun} reads a run whose state moves under its reads before it settles. */
const READ_RUN_ATTEMPTS = 5;

/** {@link readRun}'s view of one consistent read of the job, its state and its checkpoint. */
async function describeRun(
  context: ClientContext,
  read: {
    runId: string;
    found: FoundRun;
    job: Job;
    stored: RunCheckpoint | null;
  },
): Promise<{ run: RunInfo; incarnation: string }> {
  const { runId, found, job, stored } = read;
  const jobState = found.state;
  const { shard } = found;
  const incarnation = runIncarnationOf(job);
  // An earlier run's checkpoint under the same id says nothing about this run (nor its approvals).
  const checkpoint = stored !== null && isOfRunIncarnation(stored, incarnation) ? stored : null;
  // Parked: the job waits on its approval and question children, or a worker is parking it (the
  // checkpoint is written before the job moves). Back in a queue (its children all finished), the run
  // waits for a worker to resume it, as `listRuns` says, whatever the checkpoint still reads.
  const parked =
    jobState === 'waiting-children' || (checkpoint?.status === 'waiting-approval' && jobState === 'active');
  const state: RunState = parked ? parkedRunState(checkpoint) : runStateOf(jobState);

  const pendingApprovals: RunPendingApproval[] = [];
  if (parked && checkpoint) {
    for (const pending of checkpoint.pendingApprovals) {
      const entry: RunPendingApproval = {
        approvalId: pending.approvalId,
        toolCallId: pending.toolCallId,
        toolName: pending.toolName,
      };
      const approvalJob = await context.approvalsQueueOf(shard).getJob(pending.approvalId);
      const data = approvalJob ? approvalJobSchema.safeParse(approvalJob.data) : undefined;
      if (data?.success) {
        if (data.data.serverId !== undefined) entry.serverId = data.data.serverId;
        entry.input = data.data.input;
        entry.requestedAt = data.data.requestedAt;
        entry.expiresAt = data.data.expiresAt;
      }
      pendingApprovals.push(entry);
    }
    const records = await readApprovalRecords({
      redis: context.redis,
      prefix: shard.prefix,
      approvalIds: pendingApprovals.map((entry) => entry.approvalId),
    });
    for (const record of records) {
      const entry = pendingApprovals.find((pending) => pending.approvalId === record.request.approvalId);
      if (entry && record.decision) entry.decision = record.decision;
    }
  }

  const pendingElicitations: RunPendingElicitation[] = parked
    ? (await unansweredElicitationsOfRun({ redis: context.redis, prefix: shard.prefix, runId, incarnation })).map(
        ({ request }) => ({
          elicitationId: request.elicitationId,
          toolCallId: request.toolCallId,
          toolName: request.toolName,
          serverId: request.serverId,
          message: request.message,
          requestedAt: request.requestedAt,
          expiresAt: request.expiresAt,
        }),
      )
    : [];

  const spec = context.runSpecSchema.safeParse(job.data);
  const info: RunInfo = {
    runId,
    state,
    spec: spec.success ? spec.data : undefined,
    progress: typeof job.progress === 'object' && job.progress !== null ? (job.progress as RunProgress) : {},
    attemptsMade: job.attemptsMade,
    createdAt: job.timestamp,
    startedAt: job.processedOn ?? undefined,
    finishedAt: job.finishedOn ?? undefined,
    pendingApprovals,
    pendingElicitations,
    steps: (checkpoint?.steps ?? []).map(({ step, at, catalogVersion }) => ({
      step,
      ...(at === undefined ? {} : { at }),
      ...(catalogVersion === undefined ? {} : { catalogVersion }),
    })),
  };
  if (state === 'completed') {
    const result = runResultSchema.safeParse(job.returnvalue);
    if (result.success) info.result = result.data;
    else info.error = { message: 'the run completed with a result that does not match the run result schema' };
  }
  if (state === 'failed') info.error = { message: job.failedReason || 'failed' };
  return { run: info, incarnation };
}

/**
 * What a parked run waits for, from its checkpoint (of the job's incarnation, or `null`):
 * `waiting-approval` while it lists approvals, else `waiting-input` (see {@link RunState}).
 */
export function parkedRunState(checkpoint: { pendingApprovals: readonly unknown[] } | null): RunState {
  return (checkpoint?.pendingApprovals.length ?? 0) > 0 ? 'waiting-approval' : 'waiting-input';
}

/**
 * The run state of a BullMQ job state alone. A parked job (`waiting-children`) reads
 * `waiting-approval` here; only {@link getRun}, which reads the run's records, tells a run waiting
 * for input apart.
 */
export function runStateOf(state: string): RunState {
  switch (state) {
    case 'waiting':
    case 'prioritized':
    case 'paused':
      return 'waiting';
    case 'active':
    case 'delayed':
    case 'completed':
    case 'failed':
      return state;
    case 'waiting-children':
      return 'waiting-approval';
    default:
      return 'unknown';
  }
}
