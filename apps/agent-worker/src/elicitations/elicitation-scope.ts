import { approvalIdFor } from '@agentq/store';
import {
  digestOf,
  elicitationResponseSchema,
  type ElicitationRequestRecord,
  type ElicitationResponse,
  type SecretValueSet,
} from '@agentq/shared';
import {
  elicitationOfToolCall,
  readElicitation,
  redisTime,
  registerElicitation,
  releaseElicitationAnswer,
  takeElicitationAnswer,
  untakenAnswersOfStep,
  type RedisConnection,
} from '@agentq/store';
import { ElicitationParkedError } from './elicitation-parked-error.js';

/** A form elicitation as the server sent it, as far as it is read here. */
export interface AskedElicitation {
  mode?: string;
  message?: string;
  requestedSchema?: unknown;
}

/** The run an attempt's tool calls belong to, for their elicitations. */
export interface ElicitationRun {
  redis: RedisConnection;
  /** The run shard's key prefix. */
  prefix: string;
  shardIndex: number | undefined;
  runId: string;
  incarnation: string;
  /** How long a person has to answer (the run's approval timeout). */
  timeoutMs: number;
  /**
   * The process's secret values, masked out of a question's text and requested schema before it
   * is stored and shown: a server can echo what it was given (a header, an env value) into both.
   * @default nothing masked
   */
  secrets?: Pick<SecretValueSet, 'mask'>;
  /**
   * The run step whose tool calls are running (the model loop sets it before each step): a call
   * made again in a parked call's place, under another tool call id, may take an answer asked in
   * the same step only.
   * @default none (an answer is found by its own call's id only)
   */
  step?: number;
  /**
   * Whether the running step's model response holds a tool call of this id: when it holds the
   * call that asked, that call alone may take the answer.
   * @default none known
   */
  stepShows?: (toolCallId: string) => boolean;
}

// Past this many questions of one call under one id (each answer taken by another call), decline.
const MAX_ROUNDS = 16;

/**
 * The elicitations of one tool call of one run: what the MCP pool hands a server's
 * `elicitation/create` to when the server's policy is `ask`.
 *
 * An answer belongs to the call that asked. The elicitation id is derived from the run, its
 * incarnation, the server, the tool call id (for a nested call, the id `tool_invoke` or `tool_exec`
 * gives it), the tool, the digest of its arguments and the digest of the question (message and
 * requested schema), so the same call asking the same question after a resume finds the answer a
 * person gave, and no other call does. An answer is also used once: the call that uses it takes it
 * in Redis (see `takeElicitationAnswer`), and any other call asks a person again. The one exception
 * is the call made in a parked call's place when the resumed step comes back from the model with
 * other tool call ids: in the same run step, when the step does not hold the call that asked, at
 * the same place in its call (the n-th call of a `tool_exec` script, a `tool_invoke`, a direct
 * call), with the same server, tool, arguments and question, it may take an answer no call took
 * yet. A call whose outcome is discarded (parked, aborted) gives back what it took
 * ({@link release}), so that the call made again in its place can take it.
 *
 * A question without an answer is registered and answered `cancel` to the server, and
 * {@link parked} tells the tool journal to park the run instead of recording the call.
 */
export class ElicitationScope {
  /** Set when a question had no answer yet: the call's outcome must be discarded and the run park. */
  parked: ElicitationParkedError | undefined;
  /** The elicitations whose answers this call took. */
  private readonly taken = new Set<string>();

  constructor(
    private readonly run: ElicitationRun,
    private readonly call: { toolName: string; toolCallId: string; input: unknown },
  ) {}

  /** Answers one `elicitation/create` of `serverId` during this call. */
  async ask(serverId: string, request: AskedElicitation): Promise<ElicitationResponse> {
    // URL-mode elicitations send a person elsewhere; a parked run cannot follow them.
    if (request.mode !== undefined && request.mode !== 'form') return { action: 'decline' };
    // A second question in the same call after one already parked it: the call is discarded anyway.
    if (this.parked) return { action: 'cancel' };
    // A question no person could read through is declined before anything is stored or shown.
    if (oversized(request)) return { action: 'decline' };
    const { run, call } = this;
    const mask = <T>(value: T): T => (run.secrets ? run.secrets.mask(value) : value);
    const requestedSchema = mask(asRecord(request.requestedSchema) ?? {});
    const message = mask(request.message ?? '');
    const digest = digestOf({ message, requestedSchema });
    const argsDigest = digestOf(call.input ?? {});
    const store = { redis: run.redis, prefix: run.prefix };
    let elicitationId = '';
    for (let round = 0; ; round += 1) {
      if (round === MAX_ROUNDS) return { action: 'decline' };
      elicitationId = this.idOf({ serverId, argsDigest, digest, round });
      const existing = await readElicitation({ ...store, elicitationId });
      if (!existing) {
        if (round === 0) {
          const retaken = await this.retake({ serverId, argsDigest, digest });
          if (retaken) return retaken;
        }
        break;
      }
      if (!existing.response) break;
      const taken = await takeElicitationAnswer({ ...store, elicitationId, toolCallId: call.toolCallId });
      if (taken === 'taken') {
        this.taken.add(elicitationId);
        return elicitationResponseSchema.parse(existing.response.response);
      }
      // Taken by another call: this call asks again, under the next id.
    }
    // Dated by Redis's clock, the one its expiry is judged by (a slow worker clock must not
    // shorten the person's window).
    const now = await redisTime(store.redis);
    const record: ElicitationRequestRecord = {
      elicitationId,
      runId: run.runId,
      incarnation: run.incarnation,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      serverId,
      argsDigest,
      digest,
      message,
      requestedSchema,
      requestedAt: now,
      expiresAt: now + run.timeoutMs,
    };
    await registerElicitation({ ...store, request: record, step: run.step });
    this.parked = new ElicitationParkedError({ elicitationId, serverId });
    return { action: 'cancel' };
  }

  /**
   * Gives back the answers this call took, for a call whose outcome is discarded (it parked, or was
   * aborted): the call made again in its place may take them.
   */
  async release(): Promise<void> {
    const { run, call } = this;
    for (const elicitationId of this.taken) {
      await releaseElicitationAnswer({
        redis: run.redis,
        prefix: run.prefix,
        elicitationId,
        toolCallId: call.toolCallId,
      });
    }
    this.taken.clear();
  }

  /** The id of this call's question: bound to the run, the server, the call, and the question. */
  private idOf(question: { serverId: string; argsDigest: string; digest: string; round: number }): string {
    const { run, call } = this;
    const bound = digestOf([question.serverId, call.toolCallId, call.toolName, question.argsDigest, question.digest]);
    const suffix = question.round === 0 ? '' : `:${question.round}`;
    return approvalIdFor({
      runId: run.runId,
      incarnation: run.incarnation,
      toolCallId: `elicitation:${bound}${suffix}`,
      shard: { index: run.shardIndex },
    }).replace(/^appr-/, 'elic-');
  }

  /**
   * An answer asked in this same run step, by the same server and tool with the same arguments and
   * question, that no call took yet: the answer of the call this one is made again in place of,
   * when the resumed step's model call gave it another tool call id.
   */
  private async retake(question: {
    serverId: string;
    argsDigest: string;
    digest: string;
  }): Promise<ElicitationResponse | undefined> {
    const { run, call } = this;
    if (run.step === undefined) return undefined;
    const store = { redis: run.redis, prefix: run.prefix };
    const candidates = await untakenAnswersOfStep({
      ...store,
      runId: run.runId,
      incarnation: run.incarnation,
      step: run.step,
      question: { ...question, toolName: call.toolName },
    });
    for (const elicitationId of candidates) {
      const record = await readElicitation({ ...store, elicitationId });
      if (!record?.response) continue;
      const asker = record.request.toolCallId;
      const place = placeInCall(asker);
      if (place !== placeInCall(call.toolCallId)) continue;
      // The step makes the call that asked again under its own id: that call alone gets the answer.
      if (run.stepShows?.(asker.slice(0, asker.length - place.length))) continue;
      if ((await takeElicitationAnswer({ ...store, elicitationId, toolCallId: call.toolCallId })) !== 'taken') continue;
      this.taken.add(elicitationId);
      return elicitationResponseSchema.parse(record.response.response);
    }
    return undefined;
  }
}

/**
 * What to do with a run's tool call that an earlier attempt claimed and left without a result,
 * as far as its questions tell (see docs/mcp-servers.md):
 * - `repeat`: that attempt parked it on a question of this incarnation that now has an answer, and
 *   the call has not gone out with that answer yet: it goes out again, with the answer, once
 *   `elicitationId` is marked on its claim (see the tool journal);
 * - `park`: that attempt registered a question of this incarnation for it and stopped before the
 *   run parked (its worker died): the run parks on that question now, as it would have then;
 * - `undefined`: the call replays as interrupted, as every other claimed call does. So does a call
 *   whose claim already names the answered question: it went out with that answer, and whether it
 *   took effect is unknown.
 */
export async function elicitedCallOutcome(
  run: ElicitationRun,
  call: { toolCallId: string; answeredElicitation: string | undefined },
): Promise<{ action: 'repeat' | 'park'; elicitationId: string; serverId: string } | undefined> {
  const record = await elicitationOfToolCall({
    redis: run.redis,
    prefix: run.prefix,
    runId: run.runId,
    toolCallId: call.toolCallId,
  });
  if (record === null || record.request.incarnation !== run.incarnation) return undefined;
  const { elicitationId, serverId } = record.request;
  // A question settled without a person (expired, or closed with its run) has its answer too:
  // `cancel`, what the server gets, as documented.
  if (record.response === null) return { action: 'park', elicitationId, serverId };
  if (call.answeredElicitation === elicitationId) return undefined;
  return { action: 'repeat', elicitationId, serverId };
}

/**
 * Where a nested call sits in the model's tool call: `#2::mcp__bank__transfer` for the second call
 * of a `tool_exec` script, `::mcp__bank__transfer` for a `tool_invoke`, nothing for a direct call.
 * The model's own id may change when a resumed step is asked again; this part does not.
 */
function placeInCall(toolCallId: string): string {
  const nested = /#\d+::|::/.exec(toolCallId);
  return nested ? toolCallId.slice(nested.index) : '';
}

/** The most a server's question may hold: its message, in characters, and its form's fields. */
export const ELICITATION_LIMITS = { messageChars: 8_000, fields: 50, schemaBytes: 32 * 1024 } as const;

/**
 * Whether a server's question is past {@link ELICITATION_LIMITS}: it would be stored in Redis,
 * listed in every inbox and printed by the CLI, so a hostile server must not make it any size.
 */
function oversized(request: AskedElicitation): boolean {
  if (typeof request.message === 'string' && request.message.length > ELICITATION_LIMITS.messageChars) return true;
  const schema = asRecord(request.requestedSchema);
  if (!schema) return false;
  const properties = asRecord(schema.properties);
  if (properties && Object.keys(properties).length > ELICITATION_LIMITS.fields) return true;
  return Buffer.byteLength(JSON.stringify(schema)) > ELICITATION_LIMITS.schemaBytes;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
