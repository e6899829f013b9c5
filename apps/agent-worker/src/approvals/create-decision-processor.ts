import { decisionInputSchema, toBullmqError, ValidationError, type DecisionRecord, type Logger } from '@agentq/shared';
import { recordDecision, type RedisConnection, type RunShard, type RunShardRouter } from '@agentq/store';
import { Job, type Queue } from 'bullmq';
import { promoteQuietly } from './add-approval-job.js';

/** Options of {@link createDecisionProcessor}. */
export interface DecisionProcessorOptions {
  redis: RedisConnection;
  /** Finds the approval's run shard from its id. */
  shards: RunShardRouter;
  /** The `approvals` queue of a shard. */
  approvalsQueueOf: (shard: RunShard) => Queue;
  logger: Logger;
}

/**
 * The `decisions` processor: decisions sent as jobs by other services go through the same steps as
 * `decide` (validate, record first and atomically, then promote). A decision that cannot apply
 * (`NOT_FOUND`, `ALREADY_DECIDED`, `EXPIRED`, invalid) fails the job once, with that code, and is
 * never retried; only Redis trouble retries.
 */
export function createDecisionProcessor(options: DecisionProcessorOptions) {
  return async (job: Job, token?: string): Promise<DecisionRecord> => {
    try {
      const parsed = decisionInputSchema.safeParse(job.data);
      if (!parsed.success) throw ValidationError.fromZod('decision', parsed.error);
      // The path is a fact about where the decision came from, not something a job may claim.
      const input = { ...parsed.data, via: 'queue' as const };
      const shard = options.shards.forApproval(input.approvalId);
      // NOT_FOUND, ALREADY_DECIDED and EXPIRED are not retryable in ERROR_CODES: the job fails once.
      const { decision } = await recordDecision({ redis: options.redis, prefix: shard.prefix, input });
      const approval = await Job.fromId(options.approvalsQueueOf(shard), parsed.data.approvalId);
      if (approval) await promoteQuietly(approval, options.logger);
      return decision;
    } catch (error) {
      throw await toBullmqError(error, { job, token });
    }
  };
}
