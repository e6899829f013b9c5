import { approvalResultSchema, digestOf, type ApprovalResult, type RunCheckpoint } from '@agentq/shared';
import type { RunTools } from '../run/build-run-tools.js';

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
  /** The run's tools as built now, from the current catalog. */
  runTools: Pick<RunTools, 'allTools' | 'schemaDigests'>;
  /**
   * Deny approvals without a result instead of waiting for them: set once the run knows no
   * approval job is pending any more (a failed one will never produce a result).
   * @default false
   */
  missingAsDenied?: boolean;
}

/**
 * Turns the finished approval jobs of a parked run into `tool-approval-response` parts, or returns
 * `null` when some approval has no result yet.
 *
 * An approval only lets a call through when it was approved AND the call is still the one the
 * person saw: the tool must still be in the current catalog with the same schema digest, and the
 * arguments must match the approved digest. Anything else is a denial with the reason, so a
 * changed tool or a tampered checkpoint fails closed.
 */
export function collectApprovalResponses(options: CollectApprovalResponsesOptions): ApprovalResponsePart[] | null {
  const values = options.childrenValues;
  const results = new Map<string, ApprovalResult>();
  for (const value of Object.values(values)) {
    const parsed = approvalResultSchema.safeParse(value);
    if (parsed.success) results.set(parsed.data.approvalId, parsed.data);
  }
  const inputs = toolCallInputs(options.checkpoint.messages);
  const responses: ApprovalResponsePart[] = [];
  for (const pending of options.checkpoint.pendingApprovals) {
    const result = results.get(pending.approvalId);
    if (!result) {
      if (!options.missingAsDenied) return null;
      responses.push({
        type: 'tool-approval-response',
        approvalId: pending.approvalId,
        approved: false,
        reason: 'no-decision: the approval job failed without a result',
      });
      continue;
    }
    if (!result.approved) {
      responses.push({
        type: 'tool-approval-response',
        approvalId: pending.approvalId,
        approved: false,
        reason: denialReason(result),
      });
      continue;
    }
    const refusal = recheck({ pending, inputs, runTools: options.runTools });
    responses.push(
      refusal
        ? { type: 'tool-approval-response', approvalId: pending.approvalId, approved: false, reason: refusal }
        : { type: 'tool-approval-response', approvalId: pending.approvalId, approved: true, reason: result.reason },
    );
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

function recheck(options: {
  pending: RunCheckpoint['pendingApprovals'][number];
  inputs: Map<string, unknown>;
  runTools: Pick<RunTools, 'allTools' | 'schemaDigests'>;
}): string | null {
  const { pending } = options;
  if (!options.runTools.allTools[pending.toolName]) {
    return `Not executed: ${pending.toolName} is no longer in the tool catalog, so the approval no longer applies.`;
  }
  if (options.runTools.schemaDigests.get(pending.toolName) !== pending.schemaDigest) {
    return `Not executed: the input schema of ${pending.toolName} changed after the approval was requested; ask again.`;
  }
  if (
    !options.inputs.has(pending.toolCallId) ||
    digestOf(options.inputs.get(pending.toolCallId) ?? {}) !== pending.argsDigest
  ) {
    return `Not executed: the arguments of this ${pending.toolName} call do not match the approved ones.`;
  }
  return null;
}

function denialReason(result: ApprovalResult): string {
  if (result.outcome === 'expired') return 'expired';
  if (result.outcome === 'no-decision') return 'no-decision: the approval was released without a recorded decision';
  const who = result.decidedBy ? ` by ${result.decidedBy}` : '';
  return result.reason ? `denied${who}: ${result.reason}` : `denied${who}`;
}

function toolCallInputs(messages: RunCheckpoint['messages']): Map<string, unknown> {
  const inputs = new Map<string, unknown>();
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const part of message.content as Array<Record<string, unknown>>) {
      if (part.type === 'tool-call') inputs.set(String(part.toolCallId), part.input);
    }
  }
  return inputs;
}
