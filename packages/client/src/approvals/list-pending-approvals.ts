import { pendingApprovalIds, readApprovalRecords, type ApprovalJob } from '@agentq/shared';
import type { ApprovalContext } from './approval-context.js';

/** A pending approval: run, tool, arguments as shown to the approver, requested time and expiry. */
export type PendingApprovalInfo = ApprovalJob;

/**
 * Approvals waiting for a decision, soonest expiry first, optionally of one run. Decided
 * approvals are not listed, even before their run has picked the decision up.
 */
export async function listPendingApprovals(
  context: Pick<ApprovalContext, 'redis' | 'prefix'>,
  filter: { runId?: string } = {},
): Promise<PendingApprovalInfo[]> {
  const ids = await pendingApprovalIds({ redis: context.redis, prefix: context.prefix });
  const records = await readApprovalRecords({ redis: context.redis, prefix: context.prefix, approvalIds: ids });
  return records
    .filter((record) => record.decision === null)
    .map((record) => record.request)
    .filter((request) => filter.runId === undefined || request.runId === filter.runId)
    .sort((a, b) => a.expiresAt - b.expiresAt || a.approvalId.localeCompare(b.approvalId));
}
