import {
  activeContext,
  AgentqError,
  agentqTracer,
  type ApprovalJob,
  approvalJobSchema,
  contextFromTrace,
  type DecisionInput,
  type DecisionRecord,
  decisionRecordSchema,
  QUEUE_NAMES,
  safeParseJson,
  traceContextOf,
} from '@agentq/shared';
import { trace, type SpanContext } from '@opentelemetry/api';
import type { ChainableCommander } from 'ioredis';
import { z } from 'zod';
import { keyNames } from '../keys.js';
import { readRequestBeforeWrite, readRequestRecords, type UnreadableRecord } from '../pending/unreadable-records.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { defineStoreScripts, runStoreScript } from '../scripts/store-scripts.js';

/**
 * The durable record of one approval, shared by the worker (which requests and settles approvals)
 * and every decision path (client, API, CLI, the `decisions` queue).
 *
 * `P:approval.<approvalId>` is a hash: `request` (the {@link ApprovalJob} JSON: what the person
 * sees, and what a gated call is compared with before it executes), `expiresAt`,
 * and once decided `decision` ({@link DecisionRecord} JSON) with `outcome` (`decision`,
 * `expired` or `no-decision`). `P:approvals.pending` is a sorted set of approval ids whose approval
 * job has not finished: scored by expiry while undecided, and by decision time once decided, so a
 * sweeper finds decided-but-not-yet-delivered approvals at the low end.
 */
export type ApprovalOutcome = 'decision' | 'expired' | 'no-decision';

/** Everything known about one approval. */
export interface ApprovalRecord {
  request: ApprovalJob;
  decision: DecisionRecord | null;
  outcome: ApprovalOutcome | null;
}

/** Time a settled approval's record is kept, for audits and late `decide` answers. */
const settledTtlSeconds = 7 * 24 * 3600;

/** Options shared by the approval record functions. */
export interface ApprovalRecordsOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
}

/**
 * Queues the registration of approval requests on `transaction`, so that a run's checkpoint and
 * its approvals land in one MULTI. Idempotent: an existing request keeps its first expiry; read
 * the stored requests back with {@link readApprovalRecords}. Open `transaction` on `redis` after
 * `defineStoreScripts(redis)`: a transaction only knows the scripts defined before it.
 */
export function queueApprovalRegistrations(
  transaction: ChainableCommander,
  options: ApprovalRecordsOptions & { requests: readonly ApprovalJob[] },
): void {
  const keys = keyNames(options.prefix);
  for (const request of options.requests) {
    const valid = approvalJobSchema.parse(request);
    runStoreScript(
      options.redis,
      'approvalRegister',
      [keys.decision(valid.approvalId), keys.pendingApprovals],
      [valid.approvalId, JSON.stringify(valid), String(valid.expiresAt)],
      transaction,
    );
  }
}

/** Registers approval requests on their own (see {@link queueApprovalRegistrations}). */
export async function registerApprovalRequests(
  options: ApprovalRecordsOptions & { requests: readonly ApprovalJob[] },
): Promise<void> {
  defineStoreScripts(options.redis);
  const transaction = options.redis.multi();
  queueApprovalRegistrations(transaction, options);
  await transaction.exec();
}

/**
 * Records a decision, first and atomically. Throws `AgentqError` with code `NOT_FOUND` (no such
 * approval), `ALREADY_DECIDED` (the first decision stands, or the approval was settled without one
 * because its run was cancelled or removed; the settled decision is in the error's `cause`),
 * `EXPIRED` (judged by Redis's clock, not by `now`, which only dates the decision), `RUN_STATE_CORRUPT` (the stored request cannot be read) or `CONFLICT` (the request
 * was written by a newer version, or changed under the write). On every error nothing is
 * recorded, except the no-decision settlement of an approval whose run is gone. Returns the
 * recorded decision and the request it answers.
 */
export async function recordDecision(
  options: ApprovalRecordsOptions & {
    input: DecisionInput;
    /** The decision time it records. @default Date.now() */
    now?: number;
  },
): Promise<{ decision: DecisionRecord; request: ApprovalJob }> {
  const keys = keyNames(options.prefix);
  const { input } = options;
  const now = options.now ?? Date.now();
  const startedAt = Date.now();
  const decision: DecisionRecord = {
    approved: input.approved,
    reason: input.reason,
    decidedBy: input.decidedBy,
    decidedAt: now,
    via: input.via ?? 'client',
  };
  const recordKey = keys.decision(input.approvalId);
  // Read and checked before anything is written: the run it names decides KEYS[3], and a request
  // that cannot be read refuses the decision rather than record one the caller is told failed.
  const stored = await readRequestBeforeWrite({
    redis: options.redis,
    recordKey,
    requestSchema: approvalJobSchema,
    kind: 'approval',
    id: input.approvalId,
    action: 'decided',
  });
  const incarnation = stored.request.incarnation ?? '';
  const runJobKey = incarnation !== '' ? keys.queueJob(QUEUE_NAMES.agentRuns, stored.request.runId) : recordKey;
  const unsettled = runGoneDecision(now);
  const [status, text] = (await runStoreScript(
    options.redis,
    'approvalRecordDecision',
    [recordKey, keys.pendingApprovals, runJobKey],
    [
      input.approvalId,
      JSON.stringify(decisionRecordSchema.parse(decision)),
      String(now),
      incarnation,
      JSON.stringify(unsettled),
      String(settledTtlSeconds),
      stored.text,
    ],
  )) as [string, string | undefined];
  if (status === 'NOT_FOUND') {
    throw new AgentqError({ code: 'NOT_FOUND', field: 'approvalId', message: `No approval ${input.approvalId}` });
  }
  if (status === 'CHANGED') {
    throw new AgentqError({
      code: 'CONFLICT',
      field: 'approvalId',
      message: `Approval ${input.approvalId} changed while it was being decided; nothing was recorded`,
    });
  }
  if (status === 'EXPIRED') {
    throw new AgentqError({ code: 'EXPIRED', field: 'approvalId', message: `Approval ${input.approvalId} expired` });
  }
  if (status === 'ALREADY_DECIDED' || status === 'SETTLED') {
    const first = safeParseJson(text, decisionRecordSchema, 'recorded decision');
    const detail = first.success
      ? status === 'SETTLED'
        ? ` without a decision (${first.data.reason ?? 'no-decision'}); no decision can be recorded for it`
        : ` (${first.data.approved ? 'approved' : 'denied'} by ${first.data.decidedBy})`
      : '';
    throw new AgentqError({
      code: 'ALREADY_DECIDED',
      field: 'approvalId',
      message: `Approval ${input.approvalId} was already ${status === 'SETTLED' ? 'settled' : 'decided'}${detail}`,
      cause: first.success ? first.data : undefined,
    });
  }
  traceDecision({ request: stored.request, decision, startedAt });
  return { decision, request: stored.request };
}

/**
 * The decision as a span of the run's trace, under the step that asked for it, linked to the
 * caller's own span (an HTTP request, a queue job) when there is one. Recorded after the fact:
 * until the record is read back, nothing says which run the approval id belongs to.
 */
function traceDecision(options: { request: ApprovalJob; decision: DecisionRecord; startedAt: number }): void {
  const callerContext = activeContext();
  const caller = traceContextOf(callerContext);
  const span = agentqTracer().startSpan(
    'agentq.approval.decide',
    {
      startTime: options.startedAt,
      links: caller ? [{ context: trace.getSpanContext(callerContext) as SpanContext }] : undefined,
      attributes: {
        'agentq.run.id': options.request.runId,
        'agentq.approval.id': options.request.approvalId,
        'agentq.tool.name': options.request.toolName,
        'agentq.approval.approved': options.decision.approved,
        'agentq.approval.via': options.decision.via ?? 'client',
        'agentq.approval.decided_by': options.decision.decidedBy,
      },
    },
    contextFromTrace(options.request.trace, callerContext),
  );
  span.end();
}

/**
 * Settles an approval when its job runs: the recorded decision, or else `fallback` (expired, or
 * no decision at all), which is recorded so the first outcome stands. Removes it from the pending
 * set.
 *
 * With `untilExpiry`, an undecided approval is settled only once its expiry has come by Redis's
 * clock (within `slackMs`); before that nothing is recorded and `{ notYetMs }` says how long is
 * left. Expiry is judged there, in the same atomic step as the write, so that no process's clock
 * (fast, slow, or the one BullMQ promoted the job by) can expire an approval early.
 */
export async function settleApproval(
  options: ApprovalRecordsOptions & {
    approvalId: string;
    fallback: { outcome: 'expired' | 'no-decision'; decision: DecisionRecord };
    untilExpiry?: { slackMs?: number };
  },
): Promise<{ outcome: ApprovalOutcome; decision: DecisionRecord } | { notYetMs: number } | null> {
  const keys = keyNames(options.prefix);
  const [outcome, text] = (await runStoreScript(
    options.redis,
    'approvalSettle',
    [keys.decision(options.approvalId), keys.pendingApprovals],
    [
      options.approvalId,
      JSON.stringify(options.fallback.decision),
      options.fallback.outcome,
      String(settledTtlSeconds),
      ...(options.untilExpiry ? ['wait', String(Math.max(0, Math.round(options.untilExpiry.slackMs ?? 0)))] : []),
    ],
  )) as [string, string | undefined];
  if (outcome === 'NOT_FOUND') return null;
  if (outcome === 'NOT_YET') return { notYetMs: Math.max(1, Number(text)) };
  const parsed = safeParseJson(text, decisionRecordSchema, 'recorded decision');
  if (!parsed.success) return { outcome: options.fallback.outcome, decision: options.fallback.decision };
  return { outcome: outcome as ApprovalOutcome, decision: parsed.data };
}

/**
 * The no-decision record of an approval whose run is gone (cancelled, removed, or replaced by
 * another run under the same id): what a decision arriving after that gets back, and what the
 * approval sweeper records for such an approval.
 */
export function runGoneDecision(now: number): DecisionRecord {
  return { approved: false, reason: 'run cancelled or removed', decidedBy: 'agentq:no-decision', decidedAt: now };
}

/** The part of a run job's data that says which run it is. */
const runJobIncarnationSchema = z.looseObject({ incarnation: z.unknown().optional() });

/**
 * Of `requests`, the ids of the approvals whose run is gone: its job no longer exists (cancelled,
 * removed from Bull Board, cleaned after it failed for good), or the run id now holds another
 * incarnation. The same rule `recordDecision` refuses a decision by: no decision can land on these.
 */
export async function approvalsOfGoneRuns(
  options: ApprovalRecordsOptions & { requests: readonly ApprovalJob[] },
): Promise<Set<string>> {
  const keys = keyNames(options.prefix);
  const gone = new Set<string>();
  if (options.requests.length === 0) return gone;
  const pipeline = options.redis.pipeline();
  for (const request of options.requests) pipeline.hget(keys.queueJob(QUEUE_NAMES.agentRuns, request.runId), 'data');
  const results = (await pipeline.exec()) ?? [];
  options.requests.forEach((request, index) => {
    const [error, data] = results[index] ?? [null, null];
    if (error) throw error;
    if (typeof data !== 'string') {
      gone.add(request.approvalId);
      return;
    }
    const job = safeParseJson(data, runJobIncarnationSchema, `run ${request.runId}`);
    const current = job.success ? job.data.incarnation : undefined;
    if (request.incarnation !== undefined && typeof current === 'string' && current !== request.incarnation)
      gone.add(request.approvalId);
  });
  return gone;
}

/** One approval's record, or `null` when unknown. */
export async function readApprovalRecord(
  options: ApprovalRecordsOptions & { approvalId: string },
): Promise<ApprovalRecord | null> {
  const [record] = await readApprovalRecords({ ...options, approvalIds: [options.approvalId] });
  return record ?? null;
}

/**
 * Records of several approvals in one round trip; unknown ids, and ids whose record cannot be read
 * (see {@link inspectApprovalRecords}), are left out.
 */
export async function readApprovalRecords(
  options: ApprovalRecordsOptions & { approvalIds: readonly string[] },
): Promise<ApprovalRecord[]> {
  return (await inspectApprovalRecords(options)).records;
}

/**
 * Records of several approvals in one round trip, and the ids among them whose record cannot be
 * read: no record, a key of another type, no request, or a request that fails its schema. A
 * decision that cannot be read leaves the approval undecided.
 */
export async function inspectApprovalRecords(
  options: ApprovalRecordsOptions & { approvalIds: readonly string[] },
): Promise<{ records: ApprovalRecord[]; unreadable: UnreadableRecord[] }> {
  return await readRequestRecords({
    redis: options.redis,
    ids: options.approvalIds,
    recordKey: (id) => keyNames(options.prefix).decision(id),
    fields: ['decision', 'outcome'],
    requestSchema: approvalJobSchema,
    what: 'approval request',
    read: (request, [decisionText, outcome]): ApprovalRecord => {
      const decision = decisionText ? safeParseJson(decisionText, decisionRecordSchema, 'recorded decision') : null;
      return {
        request,
        decision: decision?.success ? decision.data : null,
        outcome: (outcome as ApprovalOutcome | null | undefined) ?? null,
      };
    },
  });
}

/**
 * Ids in the pending set scored at or below `maxScore`: undecided approvals expiring by then, and
 * decided ones whose job has not delivered the decision yet.
 */
export async function pendingApprovalIds(
  options: ApprovalRecordsOptions & { maxScore?: number; limit?: number },
): Promise<string[]> {
  const keys = keyNames(options.prefix);
  const max = options.maxScore === undefined ? '+inf' : String(options.maxScore);
  if (options.limit === undefined) return await options.redis.zrangebyscore(keys.pendingApprovals, '-inf', max);
  return await options.redis.zrangebyscore(keys.pendingApprovals, '-inf', max, 'LIMIT', 0, options.limit);
}
