import {
  decisionInputSchema,
  QUEUE_NAMES,
  recordDecision,
  ValidationError,
  type DecisionInput,
  type DecisionRecord,
} from '@agentq/shared';
import { Job, Queue } from 'bullmq';
import type { ApprovalContext } from './approval-context.js';

/**
 * Decides a pending approval and wakes the run.
 *
 * 1. Validates the input (`VALIDATION`, naming the field).
 * 2. Records the decision first, in one atomic step: the first decision wins. An unknown id
 *    throws `NOT_FOUND`, a second decision `ALREADY_DECIDED` (the first one stands), a decision
 *    after the timeout `EXPIRED`.
 * 3. Then promotes the approval's delayed job, so the run resumes now rather than at expiry.
 *
 * A decision made while the run is still parking is not lost: the approval is known as soon as
 * the run's checkpoint is written, and the worker promotes the job itself when it finds the
 * decision. A crash between 2 and 3 is repaired by the worker's sweeper, and at the latest by the
 * approval's expiry, which then delivers the recorded decision.
 *
 * @returns the recorded decision.
 */
export async function decide(context: ApprovalContext, input: DecisionInput): Promise<DecisionRecord> {
  const parsed = decisionInputSchema.safeParse(input);
  if (!parsed.success) throw ValidationError.fromZod('decision', parsed.error);
  const { decision } = await recordDecision({ redis: context.redis, prefix: context.prefix, input: parsed.data });
  await promoteApproval(context, parsed.data.approvalId);
  return decision;
}

/** Promotes an approval's job if it exists and is still delayed. Returns whether it did. */
export async function promoteApproval(context: ApprovalContext, approvalId: string): Promise<boolean> {
  const queue =
    context.queue ?? new Queue(QUEUE_NAMES.approvals, { connection: context.redis, prefix: context.prefix });
  try {
    const job = await Job.fromId(queue, approvalId);
    if (!job) return false;
    await job.promote();
    return true;
  } catch (error) {
    // Not delayed any more (already promoted, running or done): the decision is recorded and the
    // approval job reads it whenever it runs.
    context.logger?.debug({ approvalId, error: (error as Error).message }, 'approval job not promoted');
    return false;
  } finally {
    if (!context.queue) await queue.close();
  }
}
