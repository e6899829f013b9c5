import {
  AgentqError,
  checkElicitationContent,
  decisionPathSchema,
  elicitationResponseSchema,
  QUEUE_NAMES,
  recordIdSchema,
  ValidationError,
  type DecisionPath,
  type ElicitationResponse,
  type ElicitationResponseRecord,
} from '@agentq/shared';
import {
  closeElicitationOfEndedRun,
  listPendingElicitations as listPendingRecords,
  readElicitation,
  settleElicitation,
  type ElicitationRecord,
  type RunShard,
} from '@agentq/store';
import { Job, Queue } from 'bullmq';
import { z } from 'zod';
import { approvalShards, type ApprovalContext } from '../approvals/approval-context.js';
import { osUserName } from '../approvals/decide.js';

/** One elicitation: the server's question (message and form schema) and, once settled, the answer. */
export type ElicitationInfo = ElicitationRecord;

/** Input of the client's `answerElicitation`. */
export interface ElicitationAnswerInput {
  elicitationId: string;
  /** `accept` with the form's `content`, `decline`, or `cancel`. */
  response: ElicitationResponse;
  /** @default the OS user of this process */
  answeredBy?: string;
  /** @default 'client' */
  via?: DecisionPath;
}

const answerInputSchema = z.strictObject({
  elicitationId: recordIdSchema,
  response: elicitationResponseSchema,
  answeredBy: z.string().min(1).max(200),
  via: decisionPathSchema,
});

// An elicitation id carries its run's shard as an approval id does (`elic-r<n>-…`).
function shardOf(context: Pick<ApprovalContext, 'redis' | 'prefix' | 'shards'>, elicitationId: string): RunShard {
  return approvalShards(context).forApproval(elicitationId.replace(/^elic-/, 'appr-'));
}

/**
 * One elicitation's record. `NOT_FOUND` when unknown. An unanswered one whose run was cancelled or
 * finished reads as closed (outcome `closed`), never as pending.
 */
export async function getElicitation(
  context: Pick<ApprovalContext, 'redis' | 'prefix' | 'shards'>,
  elicitationId: string,
): Promise<ElicitationInfo> {
  const shard = shardOf(context, elicitationId);
  const store = { redis: context.redis, prefix: shard.prefix, elicitationId };
  let record = await readElicitation(store);
  if (record && !record.response && (await closeElicitationOfEndedRun(store))) record = await readElicitation(store);
  if (!record)
    throw new AgentqError({ code: 'NOT_FOUND', field: 'elicitationId', message: `No elicitation ${elicitationId}` });
  return record;
}

/** Unanswered elicitations, soonest expiry first, optionally of one run, over every run shard. */
export async function listPendingElicitations(
  context: Pick<ApprovalContext, 'redis' | 'prefix' | 'shards'>,
  filter: { runId?: string } = {},
): Promise<ElicitationInfo[]> {
  const router = approvalShards(context);
  const shards = filter.runId === undefined ? await router.everyKnownShard() : await router.candidatesFor(filter.runId);
  const perShard = await Promise.all(
    shards.map(
      async (shard) => await listPendingRecords({ redis: context.redis, prefix: shard.prefix, runId: filter.runId }),
    ),
  );
  return perShard.flat().sort((a, b) => a.request.expiresAt - b.request.expiresAt);
}

/**
 * Answers an elicitation and wakes its run.
 *
 * 1. Validates the answer: its shape, and an accepted form's content against the schema the server
 *    requested (required fields, types, allowed values, bounds): `VALIDATION`, naming the field.
 * 2. Records it first, in one atomic step: the first answer wins (`ALREADY_DECIDED` after that),
 *    an answer after the expiry is `EXPIRED`, an unknown id `NOT_FOUND`, and an answer for a run
 *    that was cancelled or finished `CONFLICT` (naming the run's state; the elicitation is closed).
 * 3. Promotes the run's delayed elicitation job, so the run resumes now: its tool call is made
 *    again, and the server's question gets the recorded answer.
 */
export async function answerElicitation(
  context: ApprovalContext,
  input: ElicitationAnswerInput,
): Promise<ElicitationResponseRecord> {
  const parsed = answerInputSchema.safeParse({
    ...input,
    answeredBy: input.answeredBy ?? osUserName(),
    via: input.via ?? 'client',
  });
  if (!parsed.success) throw ValidationError.fromZod('elicitation answer', parsed.error);
  const { elicitationId, response } = parsed.data;
  const record = await getElicitation(context, elicitationId);
  if (response.action === 'accept') {
    const problem = checkElicitationContent(response.content, record.request.requestedSchema);
    if (problem) {
      const field = /^field (\S+)/.exec(problem)?.[1];
      throw new ValidationError({
        what: 'elicitation answer',
        issues: [{ field: field ? `content.${field}` : 'content', message: problem }],
      });
    }
  }
  const answer: ElicitationResponseRecord = {
    response,
    answeredBy: parsed.data.answeredBy,
    answeredAt: Date.now(),
    via: parsed.data.via,
  };
  const shard = shardOf(context, elicitationId);
  await settleElicitation({
    redis: context.redis,
    prefix: shard.prefix,
    elicitationId,
    response: answer,
    outcome: 'answer',
  });
  await promoteElicitation(context, shard, elicitationId);
  return answer;
}

async function promoteElicitation(context: ApprovalContext, shard: RunShard, elicitationId: string): Promise<void> {
  const shared = context.queueOf?.(shard);
  const queue = shared ?? new Queue(QUEUE_NAMES.approvals, { connection: context.redis, prefix: shard.prefix });
  try {
    const job = await Job.fromId(queue, elicitationId);
    await job?.promote();
  } catch (error) {
    // Not delayed any more: the answer is recorded, and the job reads it whenever it runs.
    context.logger?.debug({ elicitationId, error: (error as Error).message }, 'elicitation job not promoted');
  } finally {
    if (!shared) await queue.close();
  }
}
