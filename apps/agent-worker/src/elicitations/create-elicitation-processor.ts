import {
  AgentqError,
  elicitationResultSchema,
  recordIdSchema,
  RetryLaterError,
  type ElicitationResponse,
  type ElicitationResult,
  type Logger,
} from '@agentq/shared';
import { readElicitation, settleElicitation, type ElicitationOutcome, type RedisConnection } from '@agentq/store';
import type { Job } from 'bullmq';
import { z } from 'zod';

const elicitationJobSchema = z.strictObject({ elicitationId: recordIdSchema });

/** Options of {@link createElicitationProcessor}. */
export interface ElicitationProcessorOptions {
  redis: RedisConnection;
  /** Key prefix of the shard, already hash-tagged under cluster mode. */
  prefix: string;
  logger: Logger;
  /**
   * Slack when deciding whether the job ran because its expiry came, in ms: an expiry at most this
   * far ahead by Redis's clock counts as come.
   * @default 250
   */
  expirySlackMs?: number;
  /**
   * How many times an unanswered elicitation job may start before its expiry (by Redis's clock)
   * and be put back to wait for the rest. Past it, the elicitation is settled as expired: a worker
   * clock that keeps promoting the job early must not spin it until the expiry.
   * @default 20
   */
  maxEarlyStarts?: number;
}

/**
 * Processes the `elicitation` jobs of the `approvals` queue. One runs when an answer promoted it or
 * when its delay (the expiry) ran out; it returns the recorded answer's action, or settles the
 * elicitation as expired with the answer `cancel` (recorded, so a later answer gets `EXPIRED`).
 * The answer itself stays in the record: the resumed call reads it there.
 */
export function createElicitationProcessor(options: ElicitationProcessorOptions) {
  return async (job: Job): Promise<ElicitationResult> => {
    const parsed = elicitationJobSchema.safeParse(job.data);
    if (!parsed.success) {
      options.logger.error({ jobId: job.id, error: parsed.error.message }, 'invalid elicitation job data');
      return { elicitationId: String(job.id), action: 'cancel', outcome: 'expired' };
    }
    const { elicitationId } = parsed.data;
    const store = { redis: options.redis, prefix: options.prefix, elicitationId };
    const record = await readElicitation(store);
    if (record?.response) return resultOf(elicitationId, record.response.response, record.outcome);
    const now = Date.now();
    const expired = {
      ...store,
      outcome: 'expired' as const,
      response: { response: { action: 'cancel' as const }, answeredBy: 'agentq:expired', answeredAt: now },
      now,
    };
    try {
      // BullMQ promotes a delayed job by the clock of the worker that looks: one whose clock runs
      // fast starts this job early. Redis's clock says whether the expiry came; before it, the job
      // goes back to wait for the time left (by this worker's clock, the one it will be promoted by
      // here), a bounded number of times.
      const earlyStartsLeft = job.attemptsStarted <= (options.maxEarlyStarts ?? 20);
      const settled = await settleElicitation({
        ...expired,
        ...(earlyStartsLeft ? { untilExpiry: { slackMs: options.expirySlackMs ?? 250 } } : {}),
      });
      if (settled && 'notYetMs' in settled) {
        throw new RetryLaterError({
          message: `elicitation ${elicitationId} started ${settled.notYetMs} ms before its expiry; waiting`,
          retryAfterMs: settled.notYetMs,
        });
      }
      if (!earlyStartsLeft) {
        options.logger.warn(
          { elicitationId },
          'elicitation job kept starting before its expiry; settled as expired without asking Redis the time',
        );
      }
      return { elicitationId, action: 'cancel', outcome: 'expired' };
    } catch (error) {
      // Answered in between: that answer stands.
      if (!(AgentqError.isInstance(error) && error.code === 'ALREADY_DECIDED')) throw error;
      const answered = await readElicitation(store);
      return resultOf(elicitationId, answered?.response?.response ?? { action: 'cancel' }, answered?.outcome ?? null);
    }
  };
}

function resultOf(
  elicitationId: string,
  response: ElicitationResponse,
  outcome: ElicitationOutcome | null,
): ElicitationResult {
  return elicitationResultSchema.parse({
    elicitationId,
    action: response.action,
    outcome: outcome === 'answer' ? 'answer' : 'expired',
  });
}
