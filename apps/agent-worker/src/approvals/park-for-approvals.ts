import { parkedError, type Logger, type RunCheckpoint } from '@agentq/shared';
import { readApprovalRecords, type RunFence } from '@agentq/store';
import type { Job } from 'bullmq';
import { crashPoint } from '../run/crash-hook.js';
import type { RunProcessorDependencies } from '../run/run-processor-dependencies.js';
import { addApprovalJob } from './add-approval-job.js';

/** Options of {@link parkForApprovals}. */
export interface ParkForApprovalsOptions {
  job: Job;
  token: string | undefined;
  /** A checkpoint with pending approvals, already written. */
  checkpoint: RunCheckpoint;
  dependencies: Pick<RunProcessorDependencies, 'store' | 'redis' | 'prefix' | 'approvalsQueue' | 'env'>;
  logger: Logger;
  /** The attempt's hold on the run's lock, fencing the checkpoint write. */
  fence?: RunFence;
}

/**
 * Parks a run on its approvals without holding a worker: adds one delayed `approvals` child per
 * pending approval that has no result yet and whose job did not fail (deterministic job ids, so a
 * re-run adds nothing new),
 * promotes the ones already decided, then moves the run to `waiting-children` and throws BullMQ's
 * "parked" signal. Returns normally only when every child had already finished, so the caller can
 * resume at once.
 */
export async function parkForApprovals(options: ParkForApprovalsOptions): Promise<void> {
  const { job, checkpoint, dependencies } = options;
  if (!options.token) throw new Error('cannot park a run without its lock token');
  const [values, ignored] = await Promise.all([
    job.getChildrenValues<{ approvalId?: string }>(),
    job.getIgnoredChildrenFailures(),
  ]);
  const finished = new Set(Object.values(values).map((value) => value?.approvalId));
  // An approval job that failed released the run (its failure is ignored) and counts as a denial.
  // It must not be added again: BullMQ puts an existing job that is not completed back among the
  // parent's dependencies, and the run would wait for ever on a job that never runs again.
  const failed = new Set(Object.keys(ignored));
  const missing = checkpoint.pendingApprovals.filter(
    (pending) =>
      !finished.has(pending.approvalId) && !failed.has(dependencies.approvalsQueue.toKey(pending.approvalId)),
  );
  const records = await readApprovalRecords({
    redis: dependencies.redis,
    prefix: dependencies.prefix,
    approvalIds: missing.map((pending) => pending.approvalId),
  });
  for (const record of records) {
    await addApprovalJob({ queue: dependencies.approvalsQueue, parent: job, record, logger: options.logger });
  }
  if (missing.length > records.length) {
    options.logger.error(
      { runId: checkpoint.runId, missing: missing.length - records.length },
      'approval records are missing; the run stays parked until its approvals are re-requested',
    );
  }
  if (missing.length > 0 && checkpoint.pendingApprovals.some((pending) => !pending.childAdded)) {
    await dependencies.store.write(
      {
        ...checkpoint,
        pendingApprovals: checkpoint.pendingApprovals.map((pending) => ({ ...pending, childAdded: true })),
        updatedAt: Date.now(),
      },
      { fence: options.fence },
    );
  }
  crashPoint('after-child-add', checkpoint.runId, dependencies.env);
  const parked = await job.moveToWaitingChildren(options.token);
  if (parked) throw parkedError();
}
