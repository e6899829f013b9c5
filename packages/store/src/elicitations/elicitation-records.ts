import {
  AgentqError,
  elicitationRequestSchema,
  elicitationResponseRecordSchema,
  QUEUE_NAMES,
  safeParseJson,
  type ElicitationRequestRecord,
  type ElicitationResponseRecord,
} from '@agentq/shared';
import { keyNames } from '../keys.js';
import { redisTime } from '../redis/redis-time.js';
import { readRequestBeforeWrite, readRequestRecords, type UnreadableRecord } from '../pending/unreadable-records.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { runStoreScript } from '../scripts/store-scripts.js';
import { onRunState } from '../runs/run-state-corrupt.js';

/**
 * The durable record of one elicitation a run parked on (server policy `ask`), shared by the worker
 * (which asks, parks the run and reads the answer back when the call is made again) and every
 * answering path (client, API, inbox, CLI).
 *
 * `P:elicitation.<elicitationId>` is a hash: `request` ({@link ElicitationRequestRecord} JSON: what
 * the person sees), `expiresAt`, and once settled `response` ({@link ElicitationResponseRecord}
 * JSON) with `outcome` (`answer`, `expired`, or `closed` with `runState` when its run was cancelled
 * or finished first). `P:elicitations.pending` holds the unanswered ids
 * scored by expiry. `P:run.<runId>:elicitations` maps a tool call id to the last elicitation its
 * call asked, so that the call, once answered, may go out again (see the worker's tool journal).
 * Two internal fields bind an answer to one call: `step`, the run step the question was asked in,
 * and `takenBy`, the tool call that used the answer (see {@link takeElicitationAnswer}).
 */
export interface ElicitationRecord {
  request: ElicitationRequestRecord;
  response: ElicitationResponseRecord | null;
  /**
   * `closed`: the run that asked was cancelled (or removed) or finished before an answer came; the
   * recorded answer is `cancel`, by `agentq:run-<state>`.
   */
  outcome: ElicitationOutcome | null;
}

/** How an elicitation was settled. */
export type ElicitationOutcome = 'answer' | 'expired' | 'closed';

/** Options shared by the elicitation record functions. */
export interface ElicitationRecordsOptions {
  redis: RedisConnection;
  /** Key prefix of the run's shard, already hash-tagged under cluster mode. */
  prefix: string;
}

/** Time a settled elicitation's record is kept, for audits and late answers. */
const settledTtlSeconds = 7 * 24 * 3600;

/**
 * Registers an elicitation request; idempotent (a request already registered keeps its first
 * form and expiry). Also indexes it under its run's tool call.
 */
export async function registerElicitation(
  options: ElicitationRecordsOptions & {
    request: ElicitationRequestRecord;
    /** The run step the question was asked in. @default none */
    step?: number;
  },
): Promise<void> {
  const keys = keyNames(options.prefix);
  const request = elicitationRequestSchema.parse(options.request);
  const recordKey = keys.elicitation(request.elicitationId);
  const index = keys.runElicitations(request.runId);
  await onRunState(options.redis, request.runId, { [recordKey]: 'hash', [index]: 'hash' }, async () => {
    const created = await options.redis.hsetnx(recordKey, 'request', JSON.stringify(request));
    const transaction = options.redis.multi();
    if (created === 1) {
      transaction.hset(recordKey, 'expiresAt', String(request.expiresAt));
      if (options.step !== undefined) transaction.hset(recordKey, 'step', String(options.step));
      // Unanswered records live a settled record's time past their expiry, at most.
      transaction.pexpireat(recordKey, request.expiresAt + settledTtlSeconds * 1000);
      transaction.zadd(keys.pendingElicitations, String(request.expiresAt), request.elicitationId);
    }
    transaction.hset(index, request.toolCallId, request.elicitationId);
    transaction.pexpireat(index, request.expiresAt + settledTtlSeconds * 1000);
    const failed = ((await transaction.exec()) ?? []).find(([error]) => error !== null);
    if (failed?.[0]) throw failed[0];
  });
}

/** The elicitation ids in a run's index (`P:run.<runId>:elicitations`), by tool call id. */
export async function runElicitationIndex(
  options: ElicitationRecordsOptions & { runId: string },
): Promise<Record<string, string>> {
  const index = keyNames(options.prefix).runElicitations(options.runId);
  return await onRunState(
    options.redis,
    options.runId,
    { [index]: 'hash' },
    async () => await options.redis.hgetall(index),
  );
}

/** One elicitation's record, or `null` when unknown (or unreadable). */
export async function readElicitation(
  options: ElicitationRecordsOptions & { elicitationId: string },
): Promise<ElicitationRecord | null> {
  const { records } = await inspectElicitationRecords({ ...options, elicitationIds: [options.elicitationId] });
  return records[0] ?? null;
}

/**
 * Records of several elicitations in one round trip, and the ids among them whose record cannot be
 * read: no record, a key of another type, no request, or a request that fails its schema. An
 * answer that cannot be read leaves the elicitation unanswered.
 */
export async function inspectElicitationRecords(
  options: ElicitationRecordsOptions & { elicitationIds: readonly string[] },
): Promise<{ records: ElicitationRecord[]; unreadable: UnreadableRecord[] }> {
  const keys = keyNames(options.prefix);
  return await readRequestRecords({
    redis: options.redis,
    ids: options.elicitationIds,
    recordKey: (id) => keys.elicitation(id),
    fields: ['response', 'outcome'],
    requestSchema: elicitationRequestSchema,
    what: 'elicitation request',
    read: (request, [responseText, outcome]): ElicitationRecord => {
      const response = responseText
        ? safeParseJson(responseText, elicitationResponseRecordSchema, 'elicitation answer')
        : null;
      return {
        request,
        response: response?.success ? response.data : null,
        outcome: outcome === 'answer' || outcome === 'expired' || outcome === 'closed' ? outcome : null,
      };
    },
  });
}

/** Ids in the pending set, soonest expiry first, from the `offset`th on. */
export async function pendingElicitationIds(
  options: ElicitationRecordsOptions & { offset?: number; limit: number },
): Promise<string[]> {
  const offset = options.offset ?? 0;
  return await options.redis.zrange(keyNames(options.prefix).pendingElicitations, offset, offset + options.limit - 1);
}

/** The elicitation a run's tool call asked last, or `null`. */
export async function elicitationOfToolCall(
  options: ElicitationRecordsOptions & { runId: string; toolCallId: string },
): Promise<ElicitationRecord | null> {
  const keys = keyNames(options.prefix);
  const index = keys.runElicitations(options.runId);
  const elicitationId = await onRunState(
    options.redis,
    options.runId,
    { [index]: 'hash' },
    async () => await options.redis.hget(index, options.toolCallId),
  );
  return elicitationId ? await readElicitation({ ...options, elicitationId }) : null;
}

/**
 * Takes the answer of an elicitation for the tool call `toolCallId`, atomically: `taken` when it
 * has an answer that no other call took (taking it again by the same call is allowed), `other`
 * when another call took it, `unanswered` when it has no answer (or is unknown). An answer is
 * used by one call only; any other call asking the same question must ask a person again.
 */
export async function takeElicitationAnswer(
  options: ElicitationRecordsOptions & { elicitationId: string; toolCallId: string },
): Promise<'taken' | 'other' | 'unanswered'> {
  const status = await runStoreScript(
    options.redis,
    'elicitationTake',
    [keyNames(options.prefix).elicitation(options.elicitationId)],
    [options.toolCallId, 'take'],
  );
  return status === 'TAKEN' ? 'taken' : status === 'OTHER' ? 'other' : 'unanswered';
}

/**
 * Gives back an answer `toolCallId` took (see {@link takeElicitationAnswer}), for a call whose
 * outcome was discarded: the call made again in its place may then take it. A no-op when another
 * call holds it.
 */
export async function releaseElicitationAnswer(
  options: ElicitationRecordsOptions & { elicitationId: string; toolCallId: string },
): Promise<void> {
  await runStoreScript(
    options.redis,
    'elicitationTake',
    [keyNames(options.prefix).elicitation(options.elicitationId)],
    [options.toolCallId, 'release'],
  );
}

/**
 * The answered elicitations of a run that no call took yet and that were asked in run step
 * `step` of `incarnation` by the same server and tool, with the same arguments and question: what
 * the call made again in the place of a parked one may take when the model gave it another tool
 * call id (the step is asked of the model again on resume, and only a deterministic model repeats
 * its tool call ids).
 */
export async function untakenAnswersOfStep(
  options: ElicitationRecordsOptions & {
    runId: string;
    incarnation: string;
    step: number;
    question: Pick<ElicitationRequestRecord, 'serverId' | 'toolName' | 'argsDigest' | 'digest'>;
  },
): Promise<string[]> {
  const keys = keyNames(options.prefix);
  const ids = new Set(Object.values(await runElicitationIndex(options)));
  const found: string[] = [];
  for (const elicitationId of [...ids].sort()) {
    const [requestText, response, step, takenBy] = await options.redis.hmget(
      keys.elicitation(elicitationId),
      'request',
      'response',
      'step',
      'takenBy',
    );
    if (!requestText || !response || takenBy || step !== String(options.step)) continue;
    const parsed = safeParseJson(requestText, elicitationRequestSchema, 'elicitation request');
    if (!parsed.success) continue;
    const request = parsed.data;
    const { question } = options;
    if (
      request.runId === options.runId &&
      request.incarnation === options.incarnation &&
      request.serverId === question.serverId &&
      request.toolName === question.toolName &&
      request.argsDigest === question.argsDigest &&
      request.digest === question.digest
    ) {
      found.push(elicitationId);
    }
  }
  return found;
}

/** Options of {@link settleElicitation}. */
export type SettleElicitationOptions = ElicitationRecordsOptions & {
  elicitationId: string;
  response: ElicitationResponseRecord;
  outcome: 'answer' | 'expired';
  now?: number;
  /**
   * With `outcome: 'expired'`: settle only once the expiry has come by Redis's clock (an expiry at
   * most `slackMs` ahead counts as come); before that, nothing is written and `{ notYetMs }` (the
   * time left) is returned. Without it the settlement lands whatever the time.
   */
  untilExpiry?: { slackMs: number };
};

/**
 * Records the answer (or, with `outcome: 'expired'`, the settlement at expiry), first and
 * atomically. Throws `AgentqError` with code `NOT_FOUND`, `ALREADY_DECIDED` (the first answer
 * stands; it is in the error's `cause`), `EXPIRED`, or `CONFLICT` when the run that asked is no
 * longer waiting for it: cancelled (or removed) or finished, as its own job record in Redis says.
 * Such an elicitation is closed in the same step, so it is not pending any more. An answer to an
 * elicitation whose stored request cannot be read is refused before anything is written
 * (`RUN_STATE_CORRUPT`; `CONFLICT` for a request written by a newer version, or one that changed
 * under the write). Returns the request it answers; the settlement at expiry lands whatever the
 * request holds, and returns `null` when it cannot be read. The answer must already be checked
 * against the request's schema (this function does not read it).
 */
export async function settleElicitation(
  options: SettleElicitationOptions & { untilExpiry?: undefined },
): Promise<ElicitationRequestRecord | null>;
export async function settleElicitation(
  options: SettleElicitationOptions,
): Promise<ElicitationRequestRecord | null | { notYetMs: number }>;
export async function settleElicitation(
  options: SettleElicitationOptions,
): Promise<ElicitationRequestRecord | null | { notYetMs: number }> {
  const response = elicitationResponseRecordSchema.parse(options.response);
  const checked =
    options.outcome === 'answer'
      ? await readRequestBeforeWrite({
          redis: options.redis,
          recordKey: keyNames(options.prefix).elicitation(options.elicitationId),
          requestSchema: elicitationRequestSchema,
          kind: 'elicitation',
          id: options.elicitationId,
          action: 'answered',
        })
      : null;
  const [status, text] = await runAnswerScript({
    ...options,
    mode: options.outcome,
    response: JSON.stringify(response),
    checked,
  });
  const field = 'elicitationId';
  if (status === 'NOT_YET') return { notYetMs: Math.max(1, Number(text)) };
  if (status === 'NOT_FOUND') {
    throw new AgentqError({ code: 'NOT_FOUND', field, message: `No elicitation ${options.elicitationId}` });
  }
  if (status === 'CHANGED') {
    throw new AgentqError({
      code: 'CONFLICT',
      field,
      message: `Elicitation ${options.elicitationId} changed while it was being answered; nothing was recorded`,
    });
  }
  if (status === 'EXPIRED') {
    throw new AgentqError({ code: 'EXPIRED', field, message: `Elicitation ${options.elicitationId} expired` });
  }
  if (status === 'CLOSED') {
    const runState = text === 'completed' || text === 'failed' ? text : 'cancelled';
    const what = runState === 'cancelled' ? 'was cancelled (or removed)' : `already ${runState}`;
    throw new AgentqError({
      code: 'CONFLICT',
      field,
      message: `Elicitation ${options.elicitationId} is closed: its run ${what}, so no answer can resume it`,
    });
  }
  if (status === 'ALREADY_ANSWERED') {
    const first = safeParseJson(text, elicitationResponseRecordSchema, 'elicitation answer');
    throw new AgentqError({
      code: 'ALREADY_DECIDED',
      field,
      message: `Elicitation ${options.elicitationId} was already answered${first.success ? ` by ${first.data.answeredBy}` : ''}`,
      cause: first.success ? first.data : undefined,
    });
  }
  if (checked) return checked.request;
  // The expiry is recorded now: failing here would report a settlement that stands as failed.
  const request = safeParseJson(text, elicitationRequestSchema, `elicitation ${options.elicitationId}`);
  return request.success ? request.data : null;
}

/**
 * Closes an unanswered elicitation whose run was cancelled (or removed) or finished, as the run's
 * own job record in Redis says; returns whether the elicitation is closed (now or before). Readers
 * call it before showing a question as pending.
 */
export async function closeElicitationOfEndedRun(
  options: ElicitationRecordsOptions & { elicitationId: string; now?: number },
): Promise<boolean> {
  const text = await options.redis.hget(keyNames(options.prefix).elicitation(options.elicitationId), 'request');
  const request = text ? safeParseJson(text, elicitationRequestSchema, `elicitation ${options.elicitationId}`) : null;
  // A request that cannot be read names no run to look at: the probe then finds it open.
  const checked = text ? { text, request: request?.success ? request.data : null } : null;
  const [status] = await runAnswerScript({ ...options, mode: 'probe', response: '', checked });
  return status === 'CLOSED';
}

async function runAnswerScript(
  options: ElicitationRecordsOptions & {
    elicitationId: string;
    mode: 'answer' | 'expired' | 'probe';
    response: string;
    /** The request read before, as stored and as read (`null` when it cannot be); none for 'expired'. */
    checked: { text: string; request: ElicitationRequestRecord | null } | null;
    now?: number;
    untilExpiry?: { slackMs: number };
  },
): Promise<[string, string | undefined]> {
  const keys = keyNames(options.prefix);
  const recordKey = keys.elicitation(options.elicitationId);
  const now = options.now ?? Date.now();
  const request = options.checked?.request;
  const runJobKey = request ? keys.queueJob(QUEUE_NAMES.agentRuns, request.runId) : recordKey;
  const closed: ElicitationResponseRecord = {
    response: { action: 'cancel' },
    answeredBy: 'agentq:run-%s',
    answeredAt: now,
  };
  return (await runStoreScript(
    options.redis,
    'elicitationAnswer',
    [recordKey, keys.pendingElicitations, runJobKey],
    [
      options.elicitationId,
      options.response,
      String(now),
      options.mode,
      String(settledTtlSeconds),
      request ? request.incarnation : '',
      JSON.stringify(closed),
      options.checked?.text ?? '',
      options.mode === 'expired' && options.untilExpiry ? 'wait' : '',
      String(options.untilExpiry?.slackMs ?? 0),
    ],
  )) as [string, string | undefined];
}

/**
 * Unanswered elicitations not past their expiry by Redis's clock, soonest expiry first, among the
 * first `limit` readable ids of the pending set; `runId` narrows them to one run. An elicitation
 * whose run was cancelled or finished is closed on the way and not listed. Ids whose record cannot
 * be read are skipped and do not count against `limit`, so that a run of them at the low end cannot
 * hide the rest (the worker's sweeper takes them out of the set).
 */
export async function listPendingElicitations(
  options: ElicitationRecordsOptions & { runId?: string; limit?: number },
): Promise<ElicitationRecord[]> {
  const limit = options.limit ?? 500;
  // Read first, close after: closing takes ids out of the set, which would shift the next page.
  const readable: ElicitationRecord[] = [];
  for (let offset = 0; readable.length < limit;) {
    const ids = await pendingElicitationIds({ ...options, offset, limit: limit - readable.length });
    if (ids.length === 0) break;
    offset += ids.length;
    readable.push(...(await inspectElicitationRecords({ ...options, elicitationIds: ids })).records);
  }
  // Expiry is judged by Redis's clock, as the answer script judges it: a question past it takes no
  // answer (EXPIRED), so it is not pending, whenever its delayed job gets to settle it.
  const now = await redisTime(options.redis);
  const records: ElicitationRecord[] = [];
  for (const record of readable) {
    if (record.response || (options.runId && record.request.runId !== options.runId)) continue;
    if (record.request.expiresAt <= now) continue;
    const elicitationId = record.request.elicitationId;
    if (await closeElicitationOfEndedRun({ ...options, elicitationId })) continue;
    records.push(record);
  }
  return records;
}
