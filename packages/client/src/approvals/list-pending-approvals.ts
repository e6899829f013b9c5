import { type ApprovalJob } from '@agentq/shared';
import { approvalsOfGoneRuns, pendingApprovalIds, readApprovalRecords, redisTime } from '@agentq/store';
import { approvalShards, type ApprovalContext } from './approval-context.js';

/** A pending approval: run, tool, arguments as shown to the approver, requested time and expiry. */
export type PendingApprovalInfo = ApprovalJob;

/**
 * Approvals waiting for a decision, soonest expiry first, optionally of one run, over every run
 * shard. Listed are only those a decision can still land on: decided approvals are not listed
 * (even before their run has picked the decision up), nor approvals past their expiry, nor those
 * whose run is gone (its job removed, or the run id now another run); the approval sweeper
 * settles those. Past its expiry means by Redis's clock, the one `decide` is judged by.
 */
export async function listPendingApprovals(
  context: Pick<ApprovalContext, 'redis' | 'prefix' | 'shards'>,
  filter: { runId?: string } = {},
): Promise<PendingApprovalInfo[]> {
  const router = approvalShards(context);
  const now = await redisTime(context.redis);
  // One run's approvals live in its shard; a listing of all reads every shard, in parallel.
  const shards = filter.runId === undefined ? await router.everyKnownShard() : await router.candidatesFor(filter.runId);
  const perShard = await Promise.all(
    shards.map(async (shard) => {
      const ids = await pendingApprovalIds({ redis: context.redis, prefix: shard.prefix });
      const records = await readApprovalRecords({ redis: context.redis, prefix: shard.prefix, approvalIds: ids });
      const open = records
        .filter((record) => record.decision === null && record.request.expiresAt > now)
        .map((record) => record.request)
        .filter((request) => filter.runId === undefined || request.runId === filter.runId);
      const gone = await approvalsOfGoneRuns({ redis: context.redis, prefix: shard.prefix, requests: open });
      return open.filter((request) => !gone.has(request.approvalId));
    }),
  );
  return perShard.flat().sort((a, b) => a.expiresAt - b.expiresAt || a.approvalId.localeCompare(b.approvalId));
}
