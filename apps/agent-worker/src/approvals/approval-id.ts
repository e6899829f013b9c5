import { approvalIdFor as shardedApprovalIdFor } from '@agentq/shared';

/**
 * The approval id of a tool call, which is also its `approvals` job id. Derived from the run id, the
 * tool call id and the run's shard (`shardIndex`, absent in the single-shard layout), so a re-run
 * after a crash finds the same approval instead of creating another, and a decision finds the
 * approval's shard from its id.
 */
export function approvalIdFor(runId: string, toolCallId: string, shardIndex?: number): string {
  return shardedApprovalIdFor({ runId, toolCallId, shard: { index: shardIndex } });
}
