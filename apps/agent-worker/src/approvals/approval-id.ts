import { digestOf } from '@agentq/shared';

/**
 * The approval id of a tool call, which is also its `approvals` job id. Derived from the run id and
 * the tool call id, so a re-run after a crash finds the same approval instead of creating another.
 * (BullMQ job ids may not contain `:`, hence a digest rather than the raw ids.)
 */
export function approvalIdFor(runId: string, toolCallId: string): string {
  return `appr-${digestOf([runId, toolCallId], 32)}`;
}
