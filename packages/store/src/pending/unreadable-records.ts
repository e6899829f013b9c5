import { AgentqError, safeParseJson } from '@agentq/shared';
import type { z } from 'zod';
import { keyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { isWrongTypeError } from '../redis/redis-answers.js';
import { defineStoreScripts, runStoreScript } from '../scripts/store-scripts.js';

/**
 * Why a pending id's record cannot be read: no key at all, a key that is not a hash, a hash
 * without its `request` field, or a request that is not valid JSON of its schema.
 */
export type UnreadableProblem = 'missing' | 'wrong-type' | 'no-request' | 'invalid-request';

/** A pending approval or elicitation whose record cannot be read. */
export interface UnreadableRecord {
  /** The approval or elicitation id. */
  id: string;
  problem: UnreadableProblem;
  /** What is wrong, for the log. */
  detail: string;
  /** The stored request text, for `invalid-request`: the record is only set aside while it holds it. */
  storedRequest?: string;
}

/** The fields read from one record hash, or why there are none. */
type RecordFields = { problem: 'missing' | 'wrong-type' } | { problem: null; values: Array<string | null> };

/**
 * Reads `fields` of several record hashes in one round trip (a second one only for records whose
 * first field is absent, to tell a missing key from a hash without it). A key holding another type
 * is reported, not thrown: one damaged key must not fail every reader of a list it is on.
 */
async function readRecordFields(
  redis: RedisConnection,
  recordKeys: readonly string[],
  fields: readonly string[],
): Promise<RecordFields[]> {
  if (recordKeys.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const key of recordKeys) pipeline.hmget(key, ...fields);
  const results = (await pipeline.exec()) ?? [];
  const read = recordKeys.map((_key, index): RecordFields => {
    const [error, values] = results[index] ?? [null, []];
    if (!error) return { problem: null, values: values as Array<string | null> };
    if (isWrongTypeError(error)) return { problem: 'wrong-type' };
    throw error;
  });
  const absent = read.flatMap((entry, index) => (entry.problem === null && !entry.values[0] ? [index] : []));
  if (absent.length === 0) return read;
  const existence = redis.pipeline();
  for (const index of absent) existence.exists(recordKeys[index]!);
  const exists = (await existence.exec()) ?? [];
  absent.forEach((recordIndex, index) => {
    const [error, count] = exists[index] ?? [null, 1];
    if (error) throw error;
    if (count === 0) read[recordIndex] = { problem: 'missing' };
  });
  return read;
}

/**
 * Reads records whose hash holds a `request` JSON field followed by other fields: the readable ones
 * as `read` builds them from their request and the other fields' text, in the order of `ids`, and
 * the unreadable ones with their problem.
 */
export async function readRequestRecords<S extends z.ZodType, R>(options: {
  redis: RedisConnection;
  ids: readonly string[];
  recordKey: (id: string) => string;
  /** Fields read after `request`. */
  fields: readonly string[];
  requestSchema: S;
  /** Names the request in error details: `approval request`. */
  what: string;
  read: (request: z.output<S>, values: Array<string | null>) => R;
}): Promise<{ records: R[]; unreadable: UnreadableRecord[] }> {
  const stored = await readRecordFields(
    options.redis,
    options.ids.map((id) => options.recordKey(id)),
    ['request', ...options.fields],
  );
  const records: R[] = [];
  const unreadable: UnreadableRecord[] = [];
  options.ids.forEach((id, index) => {
    const entry = stored[index];
    if (!entry) return;
    if (entry.problem !== null) {
      const detail = entry.problem === 'missing' ? 'no record' : 'the record key is not a hash';
      unreadable.push({ id, problem: entry.problem, detail });
      return;
    }
    const [requestText, ...values] = entry.values;
    if (!requestText) {
      unreadable.push({ id, problem: 'no-request', detail: 'the record has no request field' });
      return;
    }
    const request = safeParseJson(requestText, options.requestSchema, options.what);
    // A request that fails only by fields this version does not know was written by a newer one
    // (a rolling upgrade): not readable here, but not damaged either, so it keeps its place.
    if (!request.success && onlyUnknownFields(requestText, options.requestSchema)) return;
    if (!request.success) {
      unreadable.push({ id, problem: 'invalid-request', detail: request.error.message, storedRequest: requestText });
      return;
    }
    records.push(options.read(request.data, values));
  });
  return { records, unreadable };
}

function onlyUnknownFields(text: string, schema: z.ZodType): boolean {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return false;
  }
  const parsed = schema.safeParse(raw);
  return !parsed.success && parsed.error.issues.every((issue) => issue.code === 'unrecognized_keys');
}

/**
 * Reads the request of one approval or elicitation before a decision or answer is written to it,
 * and refuses the write up front when the request cannot be read, so that nothing is recorded on a
 * record the caller is then told about as a failure. No record, or one without a request, is
 * `NOT_FOUND`; a key of another type, or a request that fails its schema, is `RUN_STATE_CORRUPT`
 * (not retried: the record stays as it is, for an operator to inspect); a request that fails only
 * by fields this version does not know (a newer writer) is `CONFLICT`, which a queue job retries. Returns the request and
 * its stored text, which the write script compares so that it only lands on the request read here.
 */
export async function readRequestBeforeWrite<S extends z.ZodType>(options: {
  redis: RedisConnection;
  recordKey: string;
  requestSchema: S;
  kind: 'approval' | 'elicitation';
  id: string;
  /** What the write would do: `decided`, `answered`. */
  action: string;
}): Promise<{ text: string; request: z.output<S> }> {
  const { kind, id } = options;
  const field = `${kind}Id`;
  const label = kind === 'approval' ? 'Approval' : 'Elicitation';
  const refuse = (detail: string): AgentqError =>
    new AgentqError({
      code: 'RUN_STATE_CORRUPT',
      field,
      message: `${label} ${id} cannot be ${options.action}: its record ${options.recordKey} is damaged (${detail}); nothing was recorded`,
    });
  let text: string | null;
  try {
    text = await options.redis.hget(options.recordKey, 'request');
  } catch (error) {
    if (error instanceof Error && isWrongTypeError(error)) throw refuse('the record key is not a hash');
    throw error;
  }
  if (!text) throw new AgentqError({ code: 'NOT_FOUND', field, message: `No ${kind} ${id}` });
  const request = safeParseJson(text, options.requestSchema, `${kind} request`);
  if (!request.success && onlyUnknownFields(text, options.requestSchema)) {
    // Written by a newer version (a rolling upgrade): not damaged, so not refused for good.
    throw new AgentqError({
      code: 'CONFLICT',
      field,
      message: `${label} ${id} cannot be ${options.action} here: its request was written by a newer version of agentq; nothing was recorded`,
    });
  }
  if (!request.success) throw refuse(request.error.message);
  return { text, request: request.data };
}

/**
 * Takes approvals or elicitations whose record cannot be read (from `inspectApprovalRecords` or
 * `inspectElicitationRecords`) out of their pending set, each only if its record still reads as it
 * did then (see `pending-set-aside-unreadable-2.lua`): one registered or decided since keeps its
 * place. The records themselves stay, for an operator to inspect. Returns the ids taken out.
 */
export async function setAsideUnreadablePending(options: {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  records: 'approvals' | 'elicitations';
  unreadable: readonly UnreadableRecord[];
}): Promise<UnreadableRecord[]> {
  if (options.unreadable.length === 0) return [];
  const keys = keyNames(options.prefix);
  const approvals = options.records === 'approvals';
  const pendingKey = approvals ? keys.pendingApprovals : keys.pendingElicitations;
  defineStoreScripts(options.redis);
  const pipeline = options.redis.pipeline();
  for (const entry of options.unreadable) {
    runStoreScript(
      options.redis,
      'pendingSetAsideUnreadable',
      [approvals ? keys.decision(entry.id) : keys.elicitation(entry.id), pendingKey],
      [entry.id, entry.problem, entry.storedRequest ?? ''],
      pipeline,
    );
  }
  const results = (await pipeline.exec()) ?? [];
  return options.unreadable.filter((_entry, index) => {
    const [error, removed] = results[index] ?? [null, 0];
    if (error) throw error;
    return removed === 1;
  });
}
