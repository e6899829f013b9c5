import { approvalIdFor as shardedApprovalIdFor } from '@agentq/store';

/**
 * The approval id of a tool call, which is also its `approvals` job id. Derived from the run id, the
 * run's incarnation, the tool call id and the run's shard (`shardIndex`, absent in the single-shard
 * layout): a re-run after a crash finds the same approval instead of creating another, a run
 * enqueued again under the same id gets approvals of its own, and a decision finds the approval's
 * shard from its id.
 */
export function approvalIdFor(options: {
  runId: string;
  /** The run's incarnation (`runIncarnationOf`). */
  incarnation: string;
  toolCallId: string;
  shardIndex?: number;
}): string {
  return shardedApprovalIdFor({
    runId: options.runId,
    incarnation: options.incarnation,
    toolCallId: options.toolCallId,
    shard: { index: options.shardIndex },
  });
}
