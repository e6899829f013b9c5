import { approvalResultSchema, parseToolId, type ApprovalResult, type RunCheckpoint } from '@agentq/shared';
import { type ApprovalRecord } from '@agentq/store';
import type { RunTools } from '../run/build-run-tools.js';
import { mismatchWithDecidedRequest } from './match-decided-request.js';

/** One `tool-approval-response` part, as appended to the run's messages. */
export interface ApprovalResponsePart {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** Options of {@link collectApprovalResponses}. */
export interface CollectApprovalResponsesOptions {
  /** `job.getChildrenValues()` of the run. */
  childrenValues: Record<string, unknown>;
  checkpoint: RunCheckpoint;
  /**
   * The approval records of the checkpoint's pending approvals, as read from Redis now. A gated
   * call is compared with its record's own request, never with the checkpoint's copy.
   */
  records: readonly ApprovalRecord[];
  /** The run executing the calls: its id and incarnation. */
  run: { runId: string; incarnation: string };
  /** The run's tools as built now, from the current catalog. */
  runTools: Pick<RunTools, 'allTools' | 'schemaDigests' | 'wireNames'>;
  /**
   * Deny approvals without a result instead of waiting for them: set once the run knows no
   * approval job is pending any more (a failed one will never produce a result).
   * @default false
   */
  missingAsDenied?: boolean;
  /** Told of each approved call that was denied because it is not the call the person decided. */
  onRefused?: (refusal: { approvalId: string; toolCallId: string; reason: string }) => void;
}

/** The reason given to the model when no decision record approves a call its approval job approved. */
const UNBACKED_REASON = 'Not executed: no decision record approves this call, so it was treated as denied.';

/**
 * Turns the finished approval jobs of a parked run into `tool-approval-response` parts, or returns
 * `null` when some approval has no result yet.
 *
 * An approval only lets a call through when its job approved it, its decision record approves it,
 * AND the call is exactly the one the person saw: the record's request names this run incarnation,
 * this call, the same tool wire name and server, the same arguments, and the schema digest the tool
 * has now (see `mismatchWithDecidedRequest`). Anything else is a denial with the reason, which the
 * model gets as the call's result, so a changed tool, a tampered checkpoint or a replayed approval
 * fails closed while the run carries on.
 */
export function collectApprovalResponses(options: CollectApprovalResponsesOptions): ApprovalResponsePart[] | null {
  const values = options.childrenValues;
  const results = new Map<string, ApprovalResult>();
  for (const value of Object.values(values)) {
    const parsed = approvalResultSchema.safeParse(value);
    if (parsed.success) results.set(parsed.data.approvalId, parsed.data);
  }
  const records = new Map(options.records.map((record) => [record.request.approvalId, record]));
  const calls = toolCalls(options.checkpoint.messages);
  const responses: ApprovalResponsePart[] = [];
  const deny = (approvalId: string, reason: string): void => {
    responses.push({ type: 'tool-approval-response', approvalId, approved: false, reason });
  };
  for (const pending of options.checkpoint.pendingApprovals) {
    const result = results.get(pending.approvalId);
    if (!result) {
      if (!options.missingAsDenied) return null;
      deny(pending.approvalId, 'no-decision: the approval job failed without a result');
      continue;
    }
    if (!result.approved) {
      deny(pending.approvalId, denialReason(result));
      continue;
    }
    const record = records.get(pending.approvalId);
    const call = calls.get(pending.toolCallId);
    const reason =
      !record || record.outcome !== 'decision' || record.decision?.approved !== true
        ? UNBACKED_REASON
        : !call
          ? 'Not executed: the call this approval was given for is not in the run.'
          : mismatchWithDecidedRequest({
              request: record.request,
              call: {
                ...options.run,
                toolCallId: pending.toolCallId,
                toolName: call.toolName,
                input: call.input,
                serverId: serverIdOf(options.runTools.wireNames[call.toolName]),
                schemaDigest: options.runTools.allTools[call.toolName]
                  ? options.runTools.schemaDigests.get(call.toolName)
                  : undefined,
              },
            });
    if (reason) {
      options.onRefused?.({ approvalId: pending.approvalId, toolCallId: pending.toolCallId, reason });
      deny(pending.approvalId, reason);
      continue;
    }
    responses.push({
      type: 'tool-approval-response',
      approvalId: pending.approvalId,
      approved: true,
      reason: record?.decision?.reason,
    });
  }
  return responses;
}

/**
 * Appends approval responses to the run's messages: into the last message when it is already a
 * tool message (a step that mixed gated and ungated calls), else as a new tool message. The SDK
 * reads the responses from the last message when the run continues.
 */
export function appendApprovalResponses(
  messages: RunCheckpoint['messages'],
  responses: readonly ApprovalResponsePart[],
): RunCheckpoint['messages'] {
  const last = messages.at(-1);
  if (last?.role === 'tool' && Array.isArray(last.content)) {
    return [...messages.slice(0, -1), { ...last, content: [...(last.content as unknown[]), ...responses] }];
  }
  return [...messages, { role: 'tool', content: [...responses] }];
}

function denialReason(result: ApprovalResult): string {
  if (result.outcome === 'expired') return 'expired';
  if (result.outcome === 'no-decision') return 'no-decision: the approval was released without a recorded decision';
  const who = result.decidedBy ? ` by ${result.decidedBy}` : '';
  return result.reason ? `denied${who}: ${result.reason}` : `denied${who}`;
}

function toolCalls(messages: RunCheckpoint['messages']): Map<string, { toolName: string; input: unknown }> {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const part of message.content as Array<Record<string, unknown>>) {
      if (part.type === 'tool-call')
        calls.set(String(part.toolCallId), { toolName: String(part.toolName), input: part.input });
    }
  }
  return calls;
}

function serverIdOf(toolId: string | undefined): string | undefined {
  return toolId === undefined ? undefined : (parseToolId(toolId)?.serverId ?? undefined);
}
