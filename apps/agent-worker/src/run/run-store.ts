import {
  AgentqError,
  isOfRunIncarnation,
  recordedToolResultSchema,
  runCheckpointSchema,
  safeParseJson,
  type Logger,
  type RecordedToolResult,
  type RunCheckpoint,
} from '@agentq/shared';
import { FINISHED_RUN_TTL_SECONDS, keyNames, runStateKeys, type KeyNames, type RedisConnection } from '@agentq/store';

export type { RecordedToolResult };

/** The run's BullMQ lock and the token of the attempt that must hold it. */
export interface RunFence {
  lockKey: string;
  token: string;
}

// KEYS: checkpoint, the run job's lock, tool results. ARGV: checkpoint JSON, lock token (empty:
// unfenced), TTL in seconds for a finished run (0: none). Returns 1 when written, 0 when the lock
// is no longer this attempt's.
const writeScript = `
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
  redis.call('EXPIRE', KEYS[3], ttl)
else
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
`;

/** Outcome of {@link RunStore.claimToolCall}. */
export type ToolCallClaim =
  | { status: 'claimed' }
  | { status: 'exists'; recorded: RecordedToolResult }
  /** This attempt no longer holds the run's lock: another worker has the run. */
  | { status: 'lock-lost' };

// KEYS: tool results hash, the run job's BullMQ lock. ARGV: tool call id, claim JSON, lock token,
// run incarnation. Fenced by the lock: an attempt whose lock lapsed (a starved or partitioned
// worker whose run was taken over) can never start a tool call, and one call id is claimed once per
// incarnation: an entry an earlier run under the same id left behind is replaced, never answered.
const claimScript = `
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[3] then return {'LOST'} end
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  local ok, entry = pcall(cjson.decode, existing)
  local earlier = ARGV[4] ~= '' and ok and type(entry) == 'table' and type(entry['incarnation']) == 'string'
    and entry['incarnation'] ~= ARGV[4]
  if not earlier then return {'EXISTS', existing} end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {'CLAIMED'}
`;

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
 * executed tool calls by tool call id (`P:run.<runId>:tool-results`).
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
    const args: Array<string | number> = [
      checkpointKey,
      options.fence?.lockKey ?? checkpointKey,
      toolResultsKey,
      JSON.stringify(checkpoint),
      options.fence?.token ?? '',
      finished ? this.finishedTtlSeconds : 0,
    ];
    let written: unknown;
    if (!options.sideWrites) {
      written = await this.redis.eval(writeScript, 3, ...args);
    } else {
      const transaction = this.redis.multi();
      transaction.eval(writeScript, 3, ...args);
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
    const [status, text] = (await this.redis.eval(
      claimScript,
      2,
      this.toolResultsKey(options.runId),
      options.fence?.lockKey ?? this.toolResultsKey(options.runId),
      options.toolCallId,
      JSON.stringify({
        claimedBy: options.owner,
        toolName: options.toolName,
        incarnation: options.incarnation,
        startedAt: options.startedAt ?? Date.now(),
      }),
      options.fence?.token ?? '',
      options.incarnation ?? '',
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
