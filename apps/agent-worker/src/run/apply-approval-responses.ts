import { summarizeToolCalls, type RunCheckpoint } from '@agentq/shared';
import { appendApprovalResponses, type ApprovalResponsePart } from '../approvals/collect-approval-responses.js';

/**
 * Folds the decisions of a parked run's approvals into its checkpoint: the responses join the
 * messages, nothing is pending any more, and the run is running again. Pure.
 */
export function applyApprovalResponses(
  checkpoint: RunCheckpoint,
  decided: {
    responses: readonly ApprovalResponsePart[];
    /** The run's tool state as this attempt restored it. */
    toolState: { readonly allowedNames: readonly string[]; readonly inspectedNames: readonly string[] };
    /** Epoch ms. */
    now: number;
  },
): RunCheckpoint {
  const messages = appendApprovalResponses(checkpoint.messages, decided.responses);
  return {
    ...checkpoint,
    messages,
    allowedNames: [...decided.toolState.allowedNames],
    inspectedNames: [...decided.toolState.inspectedNames],
    pendingApprovals: [],
    status: 'running',
    toolCalls: summarizeToolCalls(messages),
    updatedAt: decided.now,
  };
}
