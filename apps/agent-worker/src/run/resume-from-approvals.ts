import type { RunToolState } from '@agentq/registry';
import type { Logger, RunCheckpoint } from '@agentq/shared';
import { readApprovalRecords } from '@agentq/store';
import type { Job } from 'bullmq';
import { collectApprovalResponses } from '../approvals/collect-approval-responses.js';
import { parkForApprovals } from '../approvals/park-for-approvals.js';
import { applyApprovalResponses } from './apply-approval-responses.js';
import type { RunTools } from './build-run-tools.js';
import { crashPoint } from './crash-hook.js';
import type { RunProcessorDependencies } from './run-processor-dependencies.js';
import type { RunFence } from '@agentq/store';

/** Options of {@link resumeFromApprovals}. */
export interface ResumeFromApprovalsOptions {
  job: Job;
  token: string | undefined;
  dependencies: RunProcessorDependencies;
  /** A checkpoint with pending approvals. */
  checkpoint: RunCheckpoint;
  childrenValues: Record<string, unknown>;
  run: { runId: string; incarnation: string };
  runTools: RunTools;
  state: RunToolState;
  /** Whether this attempt already parked once and found every approval job finished. */
  afterPark: boolean;
  fence: RunFence | undefined;
  logger: Logger;
}

/** Outcome of {@link resumeFromApprovals}. */
export type ResumedFromApprovals =
  /** Parking found every approval job finished already: the attempt starts over at once. */
  | { status: 'start-over' }
  /** Every approval is decided; `written` is the behind write of `checkpoint`. */
  | { status: 'resumed'; checkpoint: RunCheckpoint; written: Promise<void> };

/**
 * A parked run never asks the model again and never requests a second approval: either everything
 * is decided and the decisions join the checkpoint, or the missing approval jobs are (re)added and
 * the run parks again (which throws BullMQ's "parked" signal). Each approved call is compared with
 * its decision record as stored, not with this checkpoint.
 */
export async function resumeFromApprovals(options: ResumeFromApprovalsOptions): Promise<ResumedFromApprovals> {
  const { dependencies, checkpoint, logger } = options;
  const records = await readApprovalRecords({
    redis: dependencies.redis,
    prefix: dependencies.prefix,
    approvalIds: checkpoint.pendingApprovals.map((pending) => pending.approvalId),
  });
  const responses = collectApprovalResponses({
    childrenValues: options.childrenValues,
    checkpoint,
    records,
    run: options.run,
    runTools: options.runTools,
    missingAsDenied: options.afterPark,
    onRefused: (refusal) => logger.warn(refusal, 'an approved call is not the call the person decided; denied'),
  });
  if (responses === null) {
    const { job, token, fence } = options;
    await parkForApprovals({ job, token, checkpoint, dependencies, logger, fence });
    return { status: 'start-over' };
  }
  const resumed = applyApprovalResponses(checkpoint, { responses, toolState: options.state, now: Date.now() });
  // Written behind: correctness does not depend on it (a re-run collects the same decisions
  // again, and executed tools replay from their records), it only shows the run as running
  // sooner. The next write on the same connection lands after it.
  const written = dependencies.store.write(resumed, { fence: options.fence }).then(() => undefined);
  written.catch(() => undefined);
  crashPoint('after-resume', options.run.runId, dependencies.env);
  return { status: 'resumed', checkpoint: resumed, written };
}
