import {
  AgentqError,
  isOfRunIncarnation,
  QUEUE_NAMES,
  recordedToolResultSchema,
  runCheckpointSchema,
  safeParseJson,
  type Logger,
  type RecordedToolResult,
  type RunCheckpoint,
} from '@agentq/shared';
import { keyNames, runStateKeys, type KeyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { defineStoreScripts, runStoreScript } from '../scripts/store-scripts.js';
import { FINISHED_RUN_TTL_SECONDS } from './run-state-lifecycle.js';

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

/** Extra writes that must land in the same transaction as a checkpoint. */
export type CheckpointSideWrites = (transaction: ReturnType<RedisConnection['multi']>) => void;

/**
 * The run's durable state in Redis: the checkpoint `P:run.<runId>` and, beside it, the results of
 * executed tool calls by tool call id (`P:run.<runId>:tool-results`). The worker writes it; the
 * worker and every reader (the client's `getRun` and run timeline) read it through this class, so
 * both parse a checkpoint and a journal entry the same way.
 */
export class RunStore {
  readonly keys: KeyNames;
  private readonly redis: RedisConnection;
  private readonly logger: Logger;
  private readonly finishedTtlSeconds: number;

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

  /** The checkpoint, or `null` when there is none (or it is unreadable, which is logged). */
  async read(runId: string): Promise<RunCheckpoint | null> {
    const text = await this.redis.get(this.keys.run(runId));
    if (text === null) return null;
    const parsed = safeParseJson(text, runCheckpointSchema, `checkpoint of run ${runId}`);
    if (!parsed.success) {
      // A checkpoint we cannot read cannot be resumed from; starting over is the only way forward.
      this.logger.warn({ runId, error: parsed.error.message }, 'ignoring unreadable run checkpoint');
      return null;
    }
    return parsed.data;
  }

  /**
   * Writes the checkpoint (and, once the run is finished, gives it and the recorded tool results
   * their TTL), plus `sideWrites` in the same MULTI. With `fence`, the write only happens while
   * the run's BullMQ lock holds this attempt's token: a worker whose run was taken over gets a
   * `LOCK_LOST` error instead of overwriting the new owner's progress. The checkpoint is built by
   * typed code and parsed whenever it is read back, so it is not re-validated here.
   */
  async write(
    checkpoint: RunCheckpoint,
    options: { sideWrites?: CheckpointSideWrites; fence?: RunFence } = {},
  ): Promise<void> {
    const finished = checkpoint.status === 'completed' || checkpoint.status === 'failed';
    const [checkpointKey, toolResultsKey] = runStateKeys(this.keys, checkpoint.runId);
    const keys = [checkpointKey, options.fence?.lockKey ?? checkpointKey, toolResultsKey];
    const args = [JSON.stringify(checkpoint), options.fence?.token ?? '', finished ? this.finishedTtlSeconds : 0];
    let written: unknown;
    if (!options.sideWrites) {
      written = await runStoreScript(this.redis, 'runWriteCheckpoint', keys, args);
    } else {
      // A transaction only knows the scripts defined on its connection before it was opened.
      defineStoreScripts(this.redis);
      const transaction = this.redis.multi();
      runStoreScript(this.redis, 'runWriteCheckpoint', keys, args, transaction);
      options.sideWrites(transaction);
      const results = (await transaction.exec()) ?? [];
      const failed = results.find(([error]) => error !== null);
      if (failed?.[0]) throw failed[0];
      written = results[0]?.[1];
    }
    if (Number(written) !== 1) {
      throw new AgentqError({ code: 'LOCK_LOST', message: `run ${checkpoint.runId} moved to another worker` });
    }
  }

  /**
   * Every recorded tool result of a run, by tool call id (unreadable entries are left out, and with
   * `incarnation` so are entries another incarnation of the run id wrote).
   */
  async recordedToolResults(runId: string, incarnation?: string): Promise<Map<string, RecordedToolResult>> {
    const all = await this.redis.hgetall(this.toolResultsKey(runId));
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
   * the process: an existing claim or result is returned instead. With `fence`, the claim only
   * succeeds while the run's BullMQ lock still holds this attempt's token.
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
  }): Promise<ToolCallClaim> {
    const journalKey = this.toolResultsKey(options.runId);
    const [status, text] = (await runStoreScript(
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
        }),
        options.fence?.token ?? '',
        options.incarnation ?? '',
      ],
    )) as [string, string | undefined];
    if (status === 'LOST') return { status: 'lock-lost' };
    if (status === 'CLAIMED') return { status: 'claimed' };
    const parsed = safeParseJson(text, recordedToolResultSchema, `recorded result of ${options.toolCallId}`);
    return { status: 'exists', recorded: parsed.success ? (parsed.data as RecordedToolResult) : { claimedBy: '?' } };
  }

  /** Remembers a tool call's result. */
  async recordToolResult(options: { runId: string; toolCallId: string; result: RecordedToolResult }): Promise<void> {
    await this.redis.hset(this.toolResultsKey(options.runId), options.toolCallId, JSON.stringify(options.result));
  }
}
