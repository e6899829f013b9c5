import { AgentqError, isOfRunIncarnation, parseWith, runIncarnationOf } from '@agentq/shared';
import { deleteRunState, settleApproval } from '@agentq/store';
import { listPendingApprovals } from '../approvals/list-pending-approvals.js';
import { parkedRunState, runStateOf, type RunState } from './get-run.js';
import type { ClientContext } from '../client-context.js';
import { findRun } from './find-run.js';
import { runIdSchema } from './run-id.js';

/** What `cancelRun` did. */
export interface CancelledRun {
  runId: string;
  /** The state the run was in when it was removed. */
  previousState: RunState;
}

/**
 * Removes a run that is not running right now: queued, delayed for a retry, or parked for an
 * approval (its approval jobs go with it, and its pending approvals are settled as denied). `NOT_FOUND` for an unknown run; `CONFLICT` for one that
 * already finished or that a worker holds: an active run's lock belongs to its worker, and removing
 * it under the worker would only make the worker fail noisily. A schedule's next run, before it
 * starts, is `CONFLICT` too: the schedule owns it, and removing the schedule removes it; a run the
 * schedule already started (retrying, parked) is removed like any other.
 */
export async function cancelRun(context: ClientContext, runId: string): Promise<CancelledRun> {
  parseWith(runIdSchema, runId, 'run id');
  const found = await findRun(context, runId);
  const job = found ? await found.queue.getJob(runId) : undefined;
  if (!found || !job)
    throw new AgentqError({ code: 'NOT_FOUND', field: 'runId', message: `Run ${runId} does not exist` });
  const state = await job.getState();
  if (state === 'completed' || state === 'failed') {
    throw new AgentqError({ code: 'CONFLICT', message: `Run ${runId} already ${state}` });
  }
  if (state === 'active') {
    throw new AgentqError({
      code: 'CONFLICT',
      message: `Run ${runId} is running on a worker and cannot be removed now`,
    });
  }
  // Read before the removal: once the run's job is gone, its approvals are no longer listed, and
  // what a parked run waited for is told by its checkpoint, deleted with it.
  const pending = await listPendingApprovals(context, { runId });
  const stored = state === 'waiting-children' ? await context.runStoreOf(found.shard).read(runId) : null;
  const previousState =
    state === 'waiting-children'
      ? parkedRunState(stored !== null && isOfRunIncarnation(stored, runIncarnationOf(job)) ? stored : null)
      : runStateOf(state);
  try {
    await job.remove({ removeChildren: true });
  } catch (error) {
    // BullMQ keeps a schedule's next run itself and refuses to remove it: only removing the
    // schedule does. A run the schedule already fired (retrying, parked) is removed like any other.
    if (job.repeatJobKey && /job scheduler/i.test(error instanceof Error ? error.message : String(error))) {
      throw new AgentqError({
        code: 'CONFLICT',
        message: `Run ${runId} is the next run of schedule ${job.repeatJobKey} and cannot be removed on its own; remove the schedule (DELETE /v1/schedules/${job.repeatJobKey}, or removeSchedule) to stop it`,
        cause: error,
      });
    }
    throw new AgentqError({
      code: 'CONFLICT',
      message: `Run ${runId} could not be removed (it may have just started)`,
      cause: error,
    });
  }
  // Its approvals leave the inbox with it, recorded as denied so that a late decision gets a
  // definite answer instead of NOT_FOUND.
  for (const approval of pending) {
    await settleApproval({
      redis: context.redis,
      prefix: found.shard.prefix,
      approvalId: approval.approvalId,
      fallback: {
        outcome: 'no-decision',
        decision: { approved: false, reason: 'run cancelled', decidedBy: 'cancel', decidedAt: Date.now() },
      },
    });
  }
  // The checkpoint and the tool-result journal go together: no orphaned journal after a cancel.
  await deleteRunState({ redis: context.redis, keys: found.shard.keys, runId });
  return { runId, previousState };
}
