import { AgentqError } from '@agentq/shared';
import { readApprovalRecord, type ApprovalRecord } from '@agentq/store';
import { approvalShards, type ApprovalContext } from './approval-context.js';

/** One approval as recorded: the request, and once settled the decision with who, when and how. */
export type ApprovalInfo = ApprovalRecord;

/**
 * Reads one approval's record, decided or not: the audit view of who decided, when, and through
 * which path. Records of settled approvals are kept for seven days. `NOT_FOUND` when unknown.
 */
export async function getApproval(
  context: Pick<ApprovalContext, 'redis' | 'prefix' | 'shards'>,
  approvalId: string,
): Promise<ApprovalInfo> {
  if (typeof approvalId !== 'string' || approvalId === '' || approvalId.length > 200) {
    throw new AgentqError({ code: 'VALIDATION', field: 'approvalId', message: 'approvalId must be 1-200 characters' });
  }
  const { prefix } = approvalShards(context).forApproval(approvalId);
  const record = await readApprovalRecord({ redis: context.redis, prefix, approvalId });
  if (!record) throw new AgentqError({ code: 'NOT_FOUND', field: 'approvalId', message: `No approval ${approvalId}` });
  return record;
}
