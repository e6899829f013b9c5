import type { Logger } from '@agentq/shared';
import type { ApprovalRecord } from '@agentq/store';
import { approvalJobSchema } from '@agentq/shared';
import type { Job, Queue } from 'bullmq';

/** How long finished approval jobs stay visible (Bull Board, audits). */
const keepFinishedSeconds = 7 * 24 * 3600;

/**
 * Adds the delayed `approvals` child of one approval (job id = approval id, so adding twice is a
 * no-op), and promotes it when a decision is already recorded: a decision that arrived while the
 * run was still parking is delivered now instead of at expiry.
 */
export async function addApprovalJob(options: {
  queue: Queue;
  parent: Pick<Job, 'id' | 'queueQualifiedName'>;
  record: ApprovalRecord;
  logger: Logger;
}): Promise<void> {
  const request = approvalJobSchema.parse(options.record.request);
  const child = await options.queue.add('approval', request, {
    jobId: request.approvalId,
    parent: { id: String(options.parent.id), queue: options.parent.queueQualifiedName },
    delay: Math.max(0, request.expiresAt - Date.now()),
    // Settling is one Redis script; retries ride out a Redis blip. Should it still fail, the run
    // must not wait forever: the failure releases the parent, which then counts it as a denial.
    attempts: 5,
    backoff: { type: 'exponential', delay: 1_000 },
    ignoreDependencyOnFailure: true,
    removeOnComplete: { age: keepFinishedSeconds },
    removeOnFail: { age: keepFinishedSeconds },
  });
  if (options.record.decision) await promoteQuietly(child, options.logger);
}

/** Promotes a delayed job; a job that is no longer delayed needs nothing. */
export async function promoteQuietly(job: Pick<Job, 'id' | 'promote'>, logger: Logger): Promise<boolean> {
  try {
    await job.promote();
    return true;
  } catch (error) {
    logger.debug({ jobId: job.id, error: (error as Error).message }, 'approval job was not delayed');
    return false;
  }
}
