import { type Logger } from '@agentq/shared';
import { pendingApprovalIds, readApprovalRecords, type RedisConnection } from '@agentq/store';
import { Job, type Queue } from 'bullmq';
import { promoteQuietly } from './add-approval-job.js';

/** Options of {@link sweepDecidedApprovals}. */
export interface SweepDecidedApprovalsOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  approvalsQueue: Queue;
  logger: Logger;
  /** Leave decisions younger than this to `decide` itself. @default 5000 */
  graceMs?: number;
  /** @default 500 */
  batchSize?: number;
}

/**
 * Promotes approval jobs whose decision is recorded but which are still delayed: `decide` records
 * first and promotes second, so a crash in between would otherwise hold the decision until the
 * approval expires. Returns how many it promoted.
 */
export async function sweepDecidedApprovals(options: SweepDecidedApprovalsOptions): Promise<number> {
  const ids = await pendingApprovalIds({
    redis: options.redis,
    prefix: options.prefix,
    maxScore: Date.now() - (options.graceMs ?? 5_000),
    limit: options.batchSize ?? 500,
  });
  if (ids.length === 0) return 0;
  const records = await readApprovalRecords({ redis: options.redis, prefix: options.prefix, approvalIds: ids });
  let promoted = 0;
  for (const record of records) {
    if (!record.decision || record.outcome !== 'decision') continue;
    const job = await Job.fromId(options.approvalsQueue, record.request.approvalId);
    if (!job || !(await job.isDelayed())) continue;
    if (await promoteQuietly(job, options.logger)) promoted += 1;
  }
  if (promoted > 0)
    options.logger.info({ promoted }, 'delivered decided approvals the deciding process did not promote');
  return promoted;
}
