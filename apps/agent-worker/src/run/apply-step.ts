import {
  answeredToolCallIds,
  digestOf,
  parseToolId,
  type ApprovalJob,
  type PendingApproval,
  type RunCheckpoint,
  summarizeToolCalls,
  type TraceContext,
} from '@agentq/shared';
import type { ContentPart, FinishReason, ModelMessage, ToolSet } from 'ai';
import { approvalIdFor } from '../approvals/approval-id.js';
import { renameApprovalRequests } from './rename-approval-requests.js';
import type { RunProgress } from './run-progress.js';
import { addUsage, usageOf, type ReportedUsage } from './step-usage.js';

/** What a finished model step says, as the AI SDK's `onStepFinish` hands it over. */
export interface FinishedModelStep {
  /** The step's number within this model loop (0 for the loop's first step). */
  stepNumber: number;
  text: string;
  finishReason: FinishReason;
  toolCalls: ReadonlyArray<{ toolCallId: string; toolName: string }>;
  /** The step's content; its `tool-approval-request` parts are the calls that wait for a person. */
  content: ReadonlyArray<ContentPart<ToolSet>>;
  usage: ReportedUsage;
  /** Every message the loop has produced so far, this step's last. */
  response: { messages: readonly ModelMessage[] };
}

/** What stays the same for every step of one model loop. */
export interface ModelLoopFrame {
  runId: string;
  /** The run's incarnation (`runIncarnationOf`); approval ids bind to it. */
  incarnation: string;
  /** The run shard's number, part of every approval id. @default none (single-shard layout) */
  shardIndex?: number;
  /** The messages the loop started from; the SDK's response messages follow them. */
  baseMessages: readonly ModelMessage[];
  /** The run's step count when the loop started. */
  firstStep: number;
  /** The assistant's step limit. */
  maxSteps: number;
  /** How long a person has to decide an approval. */
  approvalTimeoutMs: number;
  /** Digest of each tool's input schema by wire name; a tool without one gets `digestOf(null)`. */
  schemaDigests: ReadonlyMap<string, string>;
  /** Wire name → tool id of the run's MCP tools; it tells which server a gated call goes to. */
  wireNames: Readonly<Record<string, string>>;
}

/** One step to fold into the checkpoint, with everything the fold reads besides it. */
export interface StepToApply {
  result: FinishedModelStep;
  frame: ModelLoopFrame;
  /** The run's tool state as the step's tool calls left it. */
  toolState: { readonly allowedNames: readonly string[]; readonly inspectedNames: readonly string[] };
  /** The time the step is recorded at (epoch ms). */
  now: number;
  /** Trace context of the step, carried by the approvals it asks for. @default none */
  trace?: TraceContext;
}

/** The outcome of {@link applyStep}. */
export interface AppliedStep {
  checkpoint: RunCheckpoint;
  /** One approval per call the step gated, to register in the checkpoint's own transaction. */
  approvalRequests: ApprovalJob[];
  /** Progress to report; absent for the run's final step, whose job completion says it all. */
  progress?: RunProgress;
}

interface ApprovalRequestPart {
  sdkId: string;
  toolCall: { toolCallId: string; toolName: string; input: unknown };
}

/**
 * Folds a finished model step into the run's checkpoint. Pure: the caller writes the checkpoint
 * and the approval requests (in one transaction), reports the progress and opens the spans.
 *
 * - The step's messages follow the loop's base messages, with every approval request renamed to
 *   the run's deterministic approval id (see {@link approvalIdFor}).
 * - Each gated call becomes a pending approval and an approval request; the run then waits.
 * - A step without tool calls, or the last the assistant may take, completes the run in this same
 *   checkpoint (no extra round trip), unless it waits for approvals.
 * - Usage accumulates; tool calls and executed call ids are derived from the messages.
 */
export function applyStep(checkpoint: RunCheckpoint, step: StepToApply): AppliedStep {
  const { result, frame, now } = step;
  const requests = approvalRequestPartsOf(result.content);
  const ids = new Map(requests.map((request) => [request.sdkId, approvalIdOf(frame, request)]));
  const messages = [...checkpoint.messages, ...newResponseMessages(checkpoint, step, ids)];
  const approvalRequests = requests.map((request) =>
    approvalRequestOf({ frame, request, approvalId: ids.get(request.sdkId) as string, now, trace: step.trace }),
  );
  const pending = approvalRequests.map(pendingApprovalOf);
  const stepIndex = frame.firstStep + result.stepNumber;
  const final = pending.length === 0 && (result.toolCalls.length === 0 || stepIndex + 1 >= frame.maxSteps);
  const executed = new Set(answeredToolCallIds(messages));
  for (const approval of pending) executed.delete(approval.toolCallId);
  const usage = usageOf(result.usage);
  const next: RunCheckpoint = {
    ...checkpoint,
    messages: messages as RunCheckpoint['messages'],
    allowedNames: [...step.toolState.allowedNames],
    inspectedNames: [...step.toolState.inspectedNames],
    step: stepIndex + 1,
    steps: [
      ...checkpoint.steps,
      {
        step: stepIndex,
        text: result.text,
        finishReason: result.finishReason,
        toolCalls: result.toolCalls.map((call) => call.toolCallId),
        usage,
        catalogVersion: checkpoint.catalogVersion,
        at: now,
      },
    ],
    toolCalls: summarizeToolCalls(messages),
    usage: addUsage(checkpoint.usage, usage),
    pendingApprovals: pending,
    executedToolCallIds: [...executed],
    status: pending.length > 0 ? 'waiting-approval' : final ? 'completed' : 'running',
    updatedAt: now,
  };
  if (final) return { checkpoint: next, approvalRequests };
  const lastTool = result.toolCalls.at(-1)?.toolName ?? next.toolCalls.at(-1)?.toolName ?? null;
  return { checkpoint: next, approvalRequests, progress: { step: next.step, lastTool, status: next.status } };
}

/**
 * The messages of this step that the checkpoint does not hold yet, approval requests renamed. The
 * SDK hands over every message of the loop so far, as fresh copies; the ones earlier steps folded
 * in stay the checkpoint's own objects, so the store sends only this step's (see `RunStore`).
 */
function newResponseMessages(
  checkpoint: RunCheckpoint,
  step: StepToApply,
  ids: ReadonlyMap<string, string>,
): ModelMessage[] {
  const { frame, result } = step;
  const folded = checkpoint.messages.length - frame.baseMessages.length;
  const response = result.response.messages;
  if (folded < 0 || folded > response.length) {
    throw new Error(`step ${result.stepNumber} of run ${frame.runId} does not follow the checkpoint's messages`);
  }
  return renameApprovalRequests(response.slice(folded), ids);
}

/** The approval requests of a finished model step, with the ids the AI SDK gave them. */
export function approvalRequestPartsOf(content: FinishedModelStep['content']): ApprovalRequestPart[] {
  return content.flatMap((part) =>
    part.type === 'tool-approval-request' ? [{ sdkId: part.approvalId, toolCall: part.toolCall }] : [],
  );
}

function approvalIdOf(frame: ModelLoopFrame, request: ApprovalRequestPart): string {
  return approvalIdFor({
    runId: frame.runId,
    incarnation: frame.incarnation,
    toolCallId: request.toolCall.toolCallId,
    shardIndex: frame.shardIndex,
  });
}

/** What the person is shown, and all that the call is compared with before it executes. */
function approvalRequestOf(options: {
  frame: ModelLoopFrame;
  request: ApprovalRequestPart;
  approvalId: string;
  now: number;
  trace: TraceContext | undefined;
}): ApprovalJob {
  const { frame, request, now } = options;
  const { toolCallId, toolName } = request.toolCall;
  const toolId = frame.wireNames[toolName];
  const serverId = toolId === undefined ? undefined : parseToolId(toolId)?.serverId;
  return {
    approvalId: options.approvalId,
    runId: frame.runId,
    incarnation: frame.incarnation,
    toolCallId,
    toolName,
    ...(serverId ? { serverId } : {}),
    input: request.toolCall.input ?? {},
    argsDigest: digestOf(request.toolCall.input ?? {}),
    schemaDigest: frame.schemaDigests.get(toolName) ?? digestOf(null),
    requestedAt: now,
    expiresAt: now + frame.approvalTimeoutMs,
    ...(options.trace ? { trace: options.trace } : {}),
  };
}

function pendingApprovalOf(request: ApprovalJob): PendingApproval {
  return {
    approvalId: request.approvalId,
    toolCallId: request.toolCallId,
    toolName: request.toolName,
    argsDigest: request.argsDigest,
    schemaDigest: request.schemaDigest,
    childAdded: false,
  };
}
