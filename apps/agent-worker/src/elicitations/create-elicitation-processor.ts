import {
  AgentqError,
  elicitationResultSchema,
  recordIdSchema,
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
    try {
      await settleElicitation({
        ...store,
        outcome: 'expired',
        response: { response: { action: 'cancel' }, answeredBy: 'agentq:expired', answeredAt: now },
        now,
      });
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
