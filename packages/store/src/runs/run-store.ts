import {
  AgentqError,
  answeredToolCallIds,
  isOfRunIncarnation,
  QUEUE_NAMES,
  recordedToolResultSchema,
  runCheckpointSchema,
  runHeadSchema,
  runLogMessageSchema,
  runLogStepSchema,
  safeParseJson,
  summarizeToolCalls,
  type Logger,
  type RecordedToolResult,
  type RunCheckpoint,
  type RunHead,
  ValidationError,
} from '@agentq/shared';
import { keyNames, runStateKeys, type KeyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { defineStoreScripts, runStoreScript } from '../scripts/store-scripts.js';
import { z } from 'zod';
import { FINISHED_RUN_TTL_SECONDS } from './run-state-lifecycle.js';
import { onRunState, runStateCorrupt, type StoredType } from './run-state-corrupt.js';

/** Just enough of a stored run record to tell its format: a step-log head has `format`. */
const storedRunRecordSchema = z.looseObject({ format: z.unknown().optional() });

export type { RecordedToolResult };

/** The run's BullMQ lock and the token of the attempt that must hold it. */
export interface RunFence {
  lockKey: string;
  token: string;
}

/** Outcome of {@link RunStore.claimToolCall}. */
export type ToolCallClaim =
  | { status: 'claimed' }
  | { status: 'exists'; recorded: RecordedToolResult }
  /** This attempt no longer holds the run's lock: another worker has the run. */
  | { status: 'lock-lost' };

/** Options of {@link RunStore}. */
export interface RunStoreOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  logger: Logger;
  /** How long a finished run's checkpoint stays readable. @default FINISHED_RUN_TTL_SECONDS (7 days) */
  finishedTtlSeconds?: number;
}

/** Where a log item is stored: its run, its list (messages or steps) and its index there. */
interface StoredAt {
  readonly runId: string;
  readonly list: 'm' | 's';
  readonly index: number;
}

/** Extra writes that must land in the same transaction as a checkpoint. */
export type CheckpointSideWrites = (transaction: ReturnType<RedisConnection['multi']>) => void;

/** What one {@link RunStore.write} sent to Redis. */
export interface CheckpointWrite {
  /** Bytes of the head and the log items sent: independent of the run's length. */
  bytes: number;
  /** Log items sent: the messages and step records not stored yet (or changed). */
  messages: number;
  steps: number;
}

/**
 * The run's durable state in Redis, in the step-log format: a small head `P:run.<runId>` (status,
 * tool state, pending approvals, catalog pins, counts) and the history in two append-only lists,
 * `P:run.<runId>:messages` and `P:run.<runId>:steps`; beside them, the results of executed tool
 * calls by tool call id (`P:run.<runId>:tool-results`). A checkpoint of the single-blob format
 * written before the step log is still read (and resumed from); the run's next write replaces it
 * with a head and a log. The worker writes it; the worker and every reader (the client's `getRun`
 * and run timeline) read it through this class, so all parse it the same way.
 *
 * A write sends only the log items that are not stored yet. The store remembers, per message and
 * step record object it has read or written, the run and index it is stored at; an item that is
 * not one of those (new, or replaced by a changed copy) is sent with every item after it. The
 * items are treated as immutable, as the worker's pure folds (`applyStep`) produce them.
 */
export class RunStore {
  readonly keys: KeyNames;
  private readonly redis: RedisConnection;
  private readonly logger: Logger;
  /** How long a finished run stays readable, in seconds. */
  readonly finishedTtlSeconds: number;
  /** Log items known to be stored: object → the run, list and index it is stored at. */
  private readonly stored = new WeakMap<object, StoredAt>();

  constructor(options: RunStoreOptions) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
    this.logger = options.logger;
    this.finishedTtlSeconds = options.finishedTtlSeconds ?? FINISHED_RUN_TTL_SECONDS;
  }

  /** Key of the recorded tool results of a run. */
  toolResultsKey(runId: string): string {
    return this.keys.runToolResults(runId);
  }

  /**
   * The fence of one attempt at a run: the run job's BullMQ lock (`P:agent-runs:<runId>:lock`)
   * and the token that attempt holds it with.
   */
  fenceFor(runId: string, token: string): RunFence {
    return { lockKey: this.keys.queueJobLock(QUEUE_NAMES.agentRuns, runId), token };
  }

  /**
   * The checkpoint, rebuilt from the head and the step log (or read from a single-blob checkpoint),
   * or `null` when there is none. One round trip. An unreadable one is logged and read as `null`
   * (for views), or, with `strict` (for resuming the run), fails with `RUN_STATE_CORRUPT`, which is
   * not retried: a run that started over would repeat every step, and its tools. A key of the run
   * holding another type of value fails with `RUN_STATE_CORRUPT` naming it, strict or not.
   */
  async read(runId: string, options: { strict?: boolean } = {}): Promise<RunCheckpoint | null> {
    const [headKey, , messagesKey, stepsKey] = runStateKeys(this.keys, runId);
    const replies = await this.onState(runId, async () => {
      const all =
        (await this.redis.multi().get(headKey).lrange(messagesKey, 0, -1).lrange(stepsKey, 0, -1).exec()) ?? [];
      const failed = all.find(([error]) => error !== null);
      if (failed?.[0]) throw failed[0];
      return all;
    });
    const [text, messageItems, stepItems] = replies.map(([, value]) => value) as [string | null, string[], string[]];
    if (text === null) return null;
    const checkpoint = this.parse(runId, text, messageItems, stepItems, options.strict === true);
    // A single-blob checkpoint's history is not in the log yet: its next write sends all of it.
    if (checkpoint?.logged) this.remember(runId, checkpoint.checkpoint, 0, 0);
    return checkpoint?.checkpoint ?? null;
  }

  private parse(
    runId: string,
    text: string,
    messageItems: string[],
    stepItems: string[],
    strict: boolean,
  ): { checkpoint: RunCheckpoint; logged: boolean } | null {
    const unreadable = (error: string) => {
      this.logger.warn({ runId, error }, 'unreadable run checkpoint');
      if (!strict) return null;
      throw runStateCorrupt(runId, error);
    };
    const headKey = this.keys.run(runId);
    // The format is told by the value's own top-level `format`, never by searching the text: a
    // single-blob checkpoint holds tool inputs, which may spell anything.
    const raw = safeParseJson(text, storedRunRecordSchema, `checkpoint ${headKey}`);
    const isHead = raw.success && raw.data.format === 'step-log';
    if (!raw.success) return unreadable(raw.error.message);
    const parsed = isHead ? runHeadSchema.safeParse(raw.data) : runCheckpointSchema.safeParse(raw.data);
    if (!parsed.success) return unreadable(ValidationError.fromZod(`checkpoint ${headKey}`, parsed.error).message);
    if (!isHead) return { checkpoint: parsed.data as RunCheckpoint, logged: false };
    const rebuilt = checkpointOf(parsed.data as RunHead, messageItems, stepItems, {
      messages: this.keys.runMessages(runId),
      steps: this.keys.runSteps(runId),
    });
    if (typeof rebuilt === 'string') return unreadable(rebuilt);
    return { checkpoint: rebuilt, logged: true };
  }

  /**
   * Writes the checkpoint: the head, and the log items not stored yet (see the class). Once the
   * run is finished, every key of the run gets its TTL. `sideWrites` land in the same MULTI.
   * `progress` is the run job's BullMQ progress, written in the same script exactly as
   * `job.updateProgress(progress)` writes it (the job's `progress` field and a `progress` event
   * for `QueueEvents`), so a step and its report cost one script call instead of two. With
   * `fence`, the write only happens while the run's BullMQ lock holds this attempt's token: a
   * worker whose run was taken over gets a `LOCK_LOST` error instead of overwriting the new
   * owner's progress. The checkpoint is built by typed code and parsed whenever it is read back,
   * so it is not re-validated here.
   */
  async write(
    checkpoint: RunCheckpoint,
    options: { sideWrites?: CheckpointSideWrites; fence?: RunFence; progress?: object } = {},
  ): Promise<CheckpointWrite> {
    const { runId } = checkpoint;
    const finished = checkpoint.status === 'completed' || checkpoint.status === 'failed';
    const [headKey, toolResultsKey, messagesKey, stepsKey] = runStateKeys(this.keys, runId);
    const { progress } = options;
    const keys = [
      headKey,
      options.fence?.lockKey ?? headKey,
      toolResultsKey,
      messagesKey,
      stepsKey,
      ...(progress
        ? [this.keys.queueJob(QUEUE_NAMES.agentRuns, runId), this.keys.queueEvents(QUEUE_NAMES.agentRuns)]
        : [headKey, headKey]),
    ];
    const firstMessage = this.firstUnstored(runId, 'm', checkpoint.messages);
    const firstStep = this.firstUnstored(runId, 's', checkpoint.steps);
    const items = [
      ...checkpoint.messages.slice(firstMessage).map((message) => JSON.stringify(message)),
      ...checkpoint.steps.slice(firstStep).map((step) => JSON.stringify(step)),
    ];
    const head = JSON.stringify(headOf(checkpoint));
    const args = [
      head,
      options.fence?.token ?? '',
      finished ? this.finishedTtlSeconds : 0,
      firstMessage,
      checkpoint.messages.length,
      firstStep,
      checkpoint.steps.length,
      progress ? JSON.stringify(progress) : '',
      runId,
      ...items,
    ];
    const written = await this.onState(runId, async () => await this.run(args, keys, options.sideWrites));
    if (written === -1) {
      throw new AgentqError({ code: 'INTERNAL', message: `the step log of run ${runId} is shorter than expected` });
    }
    if (written !== 1) throw new AgentqError({ code: 'LOCK_LOST', message: `run ${runId} moved to another worker` });
    this.remember(runId, checkpoint, firstMessage, firstStep);
    let bytes = Buffer.byteLength(head);
    for (const item of items) bytes += Buffer.byteLength(item);
    return { bytes, messages: checkpoint.messages.length - firstMessage, steps: checkpoint.steps.length - firstStep };
  }

  private async run(args: Array<string | number>, keys: string[], sideWrites?: CheckpointSideWrites): Promise<number> {
    if (!sideWrites) return Number(await runStoreScript(this.redis, 'runAppendStep', keys, args));
    // A transaction only knows the scripts defined on its connection before it was opened.
    defineStoreScripts(this.redis);
    const transaction = this.redis.multi();
    runStoreScript(this.redis, 'runAppendStep', keys, args, transaction);
    sideWrites(transaction);
    const results = (await transaction.exec()) ?? [];
    const failed = results.find(([error]) => error !== null);
    if (failed?.[0]) throw failed[0];
    return Number(results[0]?.[1]);
  }

  /**
   * Runs `operation` on the run's state keys: a `WRONGTYPE` reply fails with `RUN_STATE_CORRUPT`
   * naming the key (see `onRunState`).
   */
  private async onState<T>(runId: string, operation: () => Promise<T>): Promise<T> {
    const [head, toolResults, messages, steps, stepAnswer] = runStateKeys(this.keys, runId);
    const expected: Record<string, StoredType> = {
      [head]: 'string',
      [toolResults]: 'hash',
      [messages]: 'list',
      [steps]: 'list',
      [stepAnswer]: 'string',
    };
    return await onRunState(this.redis, runId, expected, operation);
  }

  /** The index of the first item of `items` not known to be stored at its index for the run. */
  private firstUnstored(runId: string, list: 'm' | 's', items: readonly object[]): number {
    for (let index = 0; index < items.length; index += 1) {
      const at = this.stored.get(items[index] as object);
      if (at === undefined || at.index !== index || at.list !== list || at.runId !== runId) return index;
    }
    return items.length;
  }

  private remember(runId: string, checkpoint: RunCheckpoint, firstMessage: number, firstStep: number): void {
    for (let index = firstMessage; index < checkpoint.messages.length; index += 1) {
      this.stored.set(checkpoint.messages[index] as object, { runId, list: 'm', index });
    }
    for (let index = firstStep; index < checkpoint.steps.length; index += 1) {
      this.stored.set(checkpoint.steps[index] as object, { runId, list: 's', index });
    }
  }

  /**
   * Every recorded tool result of a run, by tool call id (unreadable entries are left out, and with
   * `incarnation` so are entries another incarnation of the run id wrote).
   */
  async recordedToolResults(runId: string, incarnation?: string): Promise<Map<string, RecordedToolResult>> {
    const all = await this.onState(runId, async () => await this.redis.hgetall(this.toolResultsKey(runId)));
    const out = new Map<string, RecordedToolResult>();
    for (const [toolCallId, text] of Object.entries(all)) {
      const parsed = safeParseJson(text, recordedToolResultSchema, `recorded result of ${toolCallId}`);
      if (!parsed.success) continue;
      const entry = parsed.data as RecordedToolResult;
      // Left by an earlier run under this id: not this run's result.
      if (incarnation !== undefined && !isOfRunIncarnation(entry, incarnation)) continue;
      out.set(toolCallId, entry);
    }
    return out;
  }

  /**
   * Claims a tool call before it executes, so that it executes at most once whatever happens to
   * the process: an existing claim or result is returned instead (but see `answeredElicitation`).
   * With `fence`, the claim only succeeds while the run's BullMQ lock still holds this attempt's
   * token.
   */
  async claimToolCall(options: {
    runId: string;
    toolCallId: string;
    owner: string;
    fence?: RunFence;
    /** When the call starts, shown on the run page. @default now */
    startedAt?: number;
    /** The tool's wire name, so a call still running can be shown by name. */
    toolName?: string;
    /** The run incarnation claiming: an entry of another incarnation does not count as a claim. */
    incarnation?: string;
    /**
     * The answered elicitation the call is sent again with, for the call an earlier attempt parked
     * on it: this attempt's bare claim of the call then replaces the earlier one and names the
     * elicitation, unless a claim naming it is there already (the call went out with that answer
     * once; it is `exists` then, like any claimed call).
     * @default none (an ordinary claim)
     */
    answeredElicitation?: string;
  }): Promise<ToolCallClaim> {
    const journalKey = this.toolResultsKey(options.runId);
    const [status, text] = (await this.onState(
      options.runId,
      async () =>
        await runStoreScript(
          this.redis,
          'runClaimToolCall',
          [journalKey, options.fence?.lockKey ?? journalKey],
          [
            options.toolCallId,
            JSON.stringify({
              claimedBy: options.owner,
              toolName: options.toolName,
              incarnation: options.incarnation,
              startedAt: options.startedAt ?? Date.now(),
              answeredElicitation: options.answeredElicitation,
            }),
            options.fence?.token ?? '',
            options.incarnation ?? '',
            options.answeredElicitation ?? '',
          ],
        ),
    )) as [string, string | undefined];
    if (status === 'LOST') return { status: 'lock-lost' };
    if (status === 'CLAIMED') return { status: 'claimed' };
    const parsed = safeParseJson(text, recordedToolResultSchema, `recorded result of ${options.toolCallId}`);
    return { status: 'exists', recorded: parsed.success ? (parsed.data as RecordedToolResult) : { claimedBy: '?' } };
  }

  /**
   * The model answer recorded for the run's step in flight (see {@link RunStore.recordStepAnswer}),
   * as stored, or `null`. The worker validates it: the store does not know the model's formats.
   */
  async readStepAnswer(runId: string): Promise<string | null> {
    return await this.onState(runId, async () => await this.redis.get(this.keys.runStepAnswer(runId)));
  }

  /**
   * Records the model's answer for the run's step in flight (one JSON record, replacing the one
   * before), before that step's tool calls run. It expires after the finished-run TTL, and the
   * run's state cleanup deletes it with the rest. With `fence`, it is written only while the run's
   * BullMQ lock holds this attempt's token; otherwise it throws `LOCK_LOST`.
   */
  async recordStepAnswer(options: { runId: string; record: string; fence?: RunFence }): Promise<void> {
    const key = this.keys.runStepAnswer(options.runId);
    const written = await this.onState(
      options.runId,
      async () =>
        await runStoreScript(
          this.redis,
          'runRecordStepAnswer',
          [key, options.fence?.lockKey ?? key],
          [options.record, options.fence?.token ?? '', this.finishedTtlSeconds],
        ),
    );
    if (Number(written) !== 1) {
      throw new AgentqError({ code: 'LOCK_LOST', message: `run ${options.runId} moved to another worker` });
    }
  }

  /** Remembers a tool call's result. */
  async recordToolResult(options: { runId: string; toolCallId: string; result: RecordedToolResult }): Promise<void> {
    const key = this.toolResultsKey(options.runId);
    await this.onState(
      options.runId,
      async () => await this.redis.hset(key, options.toolCallId, JSON.stringify(options.result)),
    );
  }
}

/** The head of a checkpoint: everything but its history, with the history's length. */
export function headOf(checkpoint: RunCheckpoint): RunHead {
  const { messages, steps, toolCalls: _toolCalls, executedToolCallIds: _executed, ...rest } = checkpoint;
  return { ...rest, format: 'step-log', messageCount: messages.length, stepCount: steps.length };
}

/**
 * A checkpoint rebuilt from its head and its log items (JSON each), or what is wrong with them.
 * The tool calls and executed call ids are derived from the messages, as the worker derives them.
 */
export function checkpointOf(
  head: RunHead,
  messageItems: readonly string[],
  stepItems: readonly string[],
  /** The names of the log's lists, for what is wrong with an item. */
  lists: { messages: string; steps: string } = { messages: 'messages', steps: 'steps' },
): RunCheckpoint | string {
  if (messageItems.length < head.messageCount || stepItems.length < head.stepCount) {
    return `the step log holds ${messageItems.length} messages and ${stepItems.length} steps, the head counts ${head.messageCount} and ${head.stepCount}`;
  }
  const messages: RunCheckpoint['messages'] = [];
  for (const [index, item] of messageItems.slice(0, head.messageCount).entries()) {
    const parsed = safeParseJson(item, runLogMessageSchema, `item ${index} of ${lists.messages}`);
    if (!parsed.success) return parsed.error.message;
    messages.push(parsed.data);
  }
  const steps: RunCheckpoint['steps'] = [];
  for (const [index, item] of stepItems.slice(0, head.stepCount).entries()) {
    const parsed = safeParseJson(item, runLogStepSchema, `item ${index} of ${lists.steps}`);
    if (!parsed.success) return parsed.error.message;
    steps.push(parsed.data);
  }
  const { format: _format, messageCount: _messageCount, stepCount: _stepCount, ...rest } = head;
  const pending = new Set(head.pendingApprovals.map((approval) => approval.toolCallId));
  return {
    ...rest,
    messages,
    steps,
    toolCalls: summarizeToolCalls(messages),
    executedToolCallIds: answeredToolCallIds(messages).filter((id) => !pending.has(id)),
  };
}
