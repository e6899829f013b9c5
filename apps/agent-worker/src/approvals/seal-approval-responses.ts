import { approvalResultSchema, type RunCheckpoint } from '@agentq/shared';
import { approvalIdFor } from './approval-id.js';
import { signToolApproval } from './sign-tool-approval.js';

/** Options of {@link sealApprovalResponses}. */
export interface SealApprovalResponsesOptions {
  /** The messages the model loop is about to start from. */
  messages: RunCheckpoint['messages'];
  runId: string;
  /** The run's incarnation: only approval ids of this incarnation count. */
  incarnation: string;
  /** The run's shard number; absent in the single-shard layout. */
  shardIndex?: number;
  /** `job.getChildrenValues()` of the run: the results of its own approval jobs. */
  childrenValues: Record<string, unknown>;
  /** The key the model loop verifies approval signatures with. */
  secret: Uint8Array;
}

/** What {@link sealApprovalResponses} did. */
export interface SealedApprovalResponses {
  messages: RunCheckpoint['messages'];
  /** Approval ids whose `approved: true` was turned into a denial, for the log. */
  refused: string[];
}

/** The reason given to the model for an approval that no record of the run backs. */
export const UNRECORDED_APPROVAL_REASON =
  'Not executed: no approval record of this run approves this call, so it was treated as denied.';

type Part = Record<string, unknown>;

/**
 * The last gate before the model loop, which executes every call the last tool message approves.
 * An approval counts only when the run's own approval job for that very call returned
 * `approved: true`: the request must carry the deterministic approval id of its tool call in this
 * incarnation of the run, and that id must be among the approved results of the run's children.
 * Any other approved response, whether from forged input, a tampered checkpoint, or a bug, becomes
 * a denial with {@link UNRECORDED_APPROVAL_REASON}, so it fails closed instead of running the tool.
 *
 * As a second lock, the requests that pass are signed with `secret` (see `signToolApproval`) and
 * every other signature is dropped. The model loop verifies the signatures itself and refuses to
 * execute an approved call without a valid one, so even a response this function did not see
 * could not run a tool.
 */
export function sealApprovalResponses(options: SealApprovalResponsesOptions): SealedApprovalResponses {
  const approvedByRecord = approvedApprovalIds(options.childrenValues);
  const { calls, requests } = assistantParts(options.messages);
  const backed = (approvalId: string): boolean => {
    const request = requests.get(approvalId);
    if (!request) return false;
    const toolCallId = String(request.toolCallId);
    return (
      calls.has(toolCallId) &&
      approvalIdFor({
        runId: options.runId,
        incarnation: options.incarnation,
        toolCallId,
        shardIndex: options.shardIndex,
      }) === approvalId &&
      approvedByRecord.has(approvalId)
    );
  };
  const checked = denyUnbackedApprovals(options.messages, backed);
  if (requests.size === 0) return { messages: checked.messages, refused: checked.refused };
  const messages = signApprovalRequests(checked.messages, {
    calls,
    signable: checked.signable,
    secret: options.secret,
  });
  return { messages, refused: checked.refused };
}

/** Ids of the approvals the run's own approval jobs approved. */
function approvedApprovalIds(childrenValues: Record<string, unknown>): Set<string> {
  const approved = new Set<string>();
  for (const value of Object.values(childrenValues)) {
    const parsed = approvalResultSchema.safeParse(value);
    if (parsed.success && parsed.data.approved) approved.add(parsed.data.approvalId);
  }
  return approved;
}

/** The tool calls by tool call id and the approval requests by approval id, of every assistant message. */
function assistantParts(messages: RunCheckpoint['messages']): {
  calls: Map<string, Part>;
  requests: Map<string, Part>;
} {
  const calls = new Map<string, Part>();
  const requests = new Map<string, Part>();
  for (const message of messages) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const part of message.content as Part[]) {
      if (part.type === 'tool-call') calls.set(String(part.toolCallId), part);
      if (part.type === 'tool-approval-request') requests.set(String(part.approvalId), part);
    }
  }
  return { calls, requests };
}

/**
 * Turns every approved response of the last tool message that `backed` does not vouch for into a
 * denial; the ones it vouches for are `signable`.
 */
function denyUnbackedApprovals(
  messages: RunCheckpoint['messages'],
  backed: (approvalId: string) => boolean,
): { messages: RunCheckpoint['messages']; refused: string[]; signable: Set<string> } {
  const refused: string[] = [];
  const signable = new Set<string>();
  const last = messages.at(-1);
  if (last?.role !== 'tool' || !Array.isArray(last.content)) return { messages, refused, signable };
  const content = (last.content as Part[]).map((part) => {
    if (part.type !== 'tool-approval-response' || part.approved !== true) return part;
    const approvalId = String(part.approvalId);
    if (backed(approvalId)) {
      signable.add(approvalId);
      return part;
    }
    refused.push(approvalId);
    return { ...part, approved: false, reason: UNRECORDED_APPROVAL_REASON };
  });
  return { messages: [...messages.slice(0, -1), { ...last, content }], refused, signable };
}

/** Drops every approval request's signature, and signs again the `signable` ones. */
function signApprovalRequests(
  messages: RunCheckpoint['messages'],
  options: { calls: ReadonlyMap<string, Part>; signable: ReadonlySet<string>; secret: Uint8Array },
): RunCheckpoint['messages'] {
  return messages.map((message) => {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    const content = message.content as Part[];
    if (!content.some((part) => part.type === 'tool-approval-request')) return message;
    return {
      ...message,
      content: content.map((part) => {
        if (part.type !== 'tool-approval-request') return part;
        const { signature: _dropped, ...request } = part;
        const approvalId = String(request.approvalId);
        if (!options.signable.has(approvalId)) return request;
        const call = options.calls.get(String(request.toolCallId)) as Part;
        return {
          ...request,
          signature: signToolApproval({
            secret: options.secret,
            approvalId,
            toolCallId: String(request.toolCallId),
            toolName: String(call.toolName),
            input: call.input,
          }),
        };
      }),
    };
  });
}
