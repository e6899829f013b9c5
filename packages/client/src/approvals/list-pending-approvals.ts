import { type ApprovalJob } from '@agentq/shared';
import { pendingApprovalIds, readApprovalRecords } from '@agentq/store';
import { approvalShards, type ApprovalContext } from './approval-context.js';

/** A pending approval: run, tool, arguments as shown to the approver, requested time and expiry. */
export type PendingApprovalInfo = ApprovalJob;

/**
 * Approvals waiting for a decision, soonest expiry first, optionally of one run, over every run
 * shard. Decided
 * approvals are not listed, even before their run has picked the decision up.
 */
export async function listPendingApprovals(
  context: Pick<ApprovalContext, 'redis' | 'prefix' | 'shards'>,
  filter: { runId?: string } = {},
): Promise<PendingApprovalInfo[]> {
  const router = approvalShards(context);
  // One run's approvals live in its shard; a listing of all reads every shard, in parallel.
  const shards = filter.runId === undefined ? await router.everyKnownShard() : await router.candidatesFor(filter.runId);
  const perShard = await Promise.all(
    shards.map(async (shard) => {
      const ids = await pendingApprovalIds({ redis: context.redis, prefix: shard.prefix });
      return await readApprovalRecords({ redis: context.redis, prefix: shard.prefix, approvalIds: ids });
    }),
  );
  return perShard
    .flat()
    .filter((record) => record.decision === null)
    .map((record) => record.request)
    .filter((request) => filter.runId === undefined || request.runId === filter.runId)
    .sort((a, b) => a.expiresAt - b.expiresAt || a.approvalId.localeCompare(b.approvalId));
}
