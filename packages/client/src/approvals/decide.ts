import { userInfo } from 'node:os';
import {
  decisionInputSchema,
  QUEUE_NAMES,
  ValidationError,
  type DecisionInput,
  type DecisionRecord,
} from '@agentq/shared';
import { recordDecision } from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { approvalShards, type ApprovalContext } from './approval-context.js';

/**
 * Input of the client's `decide`: `decidedBy` defaults to the OS user of this process and `via`
 * to `client`. The API and the inbox set both from the authenticated token, never from the body.
 */
export type ClientDecisionInput = Omit<DecisionInput, 'decidedBy'> & { decidedBy?: string };

/** The OS user of this process, or `unknown` when the system cannot say. */
export function osUserName(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Decides a pending approval and wakes the run.
 *
 * 1. Validates the input (`VALIDATION`, naming the field). The record says who decided, when,
 *    and through which path (`via`).
 * 2. Records the decision first, in one atomic step: the first decision wins. An unknown id
 *    throws `NOT_FOUND`, a second decision `ALREADY_DECIDED` (the first one stands), a decision
 *    after the timeout `EXPIRED`. A decision for an approval of a run that was cancelled or
 *    removed (or whose id now holds another run) is `ALREADY_DECIDED` too: the approval is settled
 *    as no-decision, and no decision can be recorded for it any more.
 * 3. Then promotes the approval's delayed job, so the run resumes now rather than at expiry.
 *
 * A decision made while the run is still parking is not lost: the approval is known as soon as
 * the run's checkpoint is written, and the worker promotes the job itself when it finds the
 * decision. A crash between 2 and 3 is repaired by the worker's sweeper, and at the latest by the
 * approval's expiry, which then delivers the recorded decision.
 *
 * @returns the recorded decision.
 */
export async function decide(context: ApprovalContext, input: ClientDecisionInput): Promise<DecisionRecord> {
  const parsed = decisionInputSchema.safeParse({
    ...input,
    decidedBy: input.decidedBy ?? osUserName(),
    via: input.via ?? 'client',
  });
  if (!parsed.success) throw ValidationError.fromZod('decision', parsed.error);
  const shard = approvalShards(context).forApproval(parsed.data.approvalId);
  const { decision } = await recordDecision({ redis: context.redis, prefix: shard.prefix, input: parsed.data });
  await promoteApproval(context, parsed.data.approvalId);
  return decision;
}

/** Promotes an approval's job if it exists and is still delayed. Returns whether it did. */
export async function promoteApproval(context: ApprovalContext, approvalId: string): Promise<boolean> {
  const shard = approvalShards(context).forApproval(approvalId);
  const shared = context.queueOf?.(shard);
  const queue = shared ?? new Queue(QUEUE_NAMES.approvals, { connection: context.redis, prefix: shard.prefix });
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
    if (!shared) await queue.close();
  }
}
