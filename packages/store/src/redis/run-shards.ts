import { createHash } from 'node:crypto';
import {
  AgentqError,
  defaultRunShardCount,
  digestOf,
  keyPrefix,
  MAX_RUN_SHARDS,
  QUEUE_NAMES,
  untaggedPrefix,
} from '@agentq/shared';
import type { RedisConnection } from './create-redis-connection.js';
import { HASH_SLOTS, hashSlot } from './hash-slot.js';
import { keyNames, runShardScope, type KeyNames } from '../keys.js';

/**
 * One run shard: the BullMQ prefix of its `agent-runs` and `approvals` queues, and the prefix of
 * its runs' checkpoints, journals and approval records. Everything of a shard shares one hash tag,
 * so BullMQ flows (a parked run and its approval children) and our Lua scripts stay in one slot.
 */
export interface RunShard {
  /** The shard's number, or `undefined` for the single-shard layout (the deployment prefix itself). */
  readonly index: number | undefined;
  /** BullMQ prefix and key prefix of the shard. */
  readonly prefix: string;
  /** Key names under the shard's prefix; use them for run keys only. */
  readonly keys: KeyNames;
  /** `r<index>`, or `main` for the single-shard layout: for logs, metrics and Bull Board. */
  readonly label: string;
}

/**
 * The key a run id routes by: the run id itself, or the schedule id for the runs a job scheduler
 * makes (`repeat:<scheduleId>:<epoch ms>`), so that a schedule and all its runs share a shard.
 */
export function runRoutingKey(runId: string): string {
  const match = /^repeat:(.+):\d+$/.exec(runId);
  return match?.[1] ?? runId;
}

/** The shard index of a run id among `count` shards: a stable hash, nothing stored. */
export function runShardIndex(runId: string, count: number): number {
  if (count <= 1) return 0;
  return createHash('sha256').update(runRoutingKey(runId)).digest().readUInt32BE(0) % count;
}

/** Where in the slot space shard `index` aims: the van der Corput sequence, so any first N shards spread evenly. */
function shardTarget(index: number): number {
  let fraction = 0;
  let weight = 0.5;
  for (let rest = index; rest > 0; rest >>= 1, weight /= 2) if (rest & 1) fraction += weight;
  return Math.floor(fraction * HASH_SLOTS);
}

const tagCache = new Map<string, string>();

/**
 * The hash tag of shard `index`: `{<prefix>.r<index>-<salt>}`, with the smallest salt whose slot
 * lands in a narrow window at the shard's target. The targets of shards 0..N-1 spread evenly over
 * the slot space for any N, so the shards spread evenly over masters that own contiguous slot
 * ranges (what `redis-cli --cluster create` and managed clusters do). A shard's tag does not
 * depend on the shard count, so shard 3 is the same queue under 8 and under 16 shards.
 */
export function runShardTag(prefix: string, index: number): string {
  const base = untaggedPrefix(prefix);
  const cacheKey = `${base}\0${index}`;
  const known = tagCache.get(cacheKey);
  if (known) return known;
  const target = shardTarget(index);
  const window = HASH_SLOTS / (MAX_RUN_SHARDS * 4);
  for (let salt = 0; ; salt += 1) {
    const tag = runShardScope(base, index, salt);
    const slot = hashSlot(tag);
    if (slot >= target && slot < target + window) {
      tagCache.set(cacheKey, tag);
      return tag;
    }
  }
}

/**
 * The approval id of a tool call, which is also its `approvals` job id. Derived from the run id,
 * the run's incarnation and the tool call id, so a re-run after a crash finds the same approval
 * instead of creating another, while a run enqueued again under the same id (a new incarnation)
 * never meets an approval of the earlier one. It names the run's shard (`appr-r<index>-<digest>`)
 * so that a decision finds the approval without knowing the run. In the single-shard layout it is
 * `appr-<digest>`, as before sharding. (BullMQ job ids may not contain `:`, hence a digest rather
 * than the raw ids.)
 */
export function approvalIdFor(options: {
  runId: string;
  /** The run's incarnation (`runIncarnationOf`). */
  incarnation: string;
  toolCallId: string;
  shard: Pick<RunShard, 'index'>;
}): string {
  const digest = digestOf([options.runId, options.incarnation, options.toolCallId], 32);
  return options.shard.index === undefined ? `appr-${digest}` : `appr-r${options.shard.index}-${digest}`;
}

/** The shard index an approval id names, `undefined` for the single-shard layout. */
export function approvalShardIndex(approvalId: string): number | undefined {
  const match = /^appr-r(\d{1,3})-/.exec(approvalId);
  if (!match) return undefined;
  const index = Number(match[1]);
  return index < MAX_RUN_SHARDS ? index : undefined;
}

/** Options of {@link RunShardRouter}. */
export interface RunShardRouterOptions {
  /** `AGENTQ_PREFIX`, as configured (hash-tagged or not). */
  prefix: string;
  /** Whether Redis is a cluster. */
  cluster: boolean;
  /** `AGENTQ_RUN_SHARDS`. @default defaultRunShardCount(cluster) */
  count?: number;
  /** Connection for the layout history (`P:run.shard-counts`); without it, only the current layout is known. */
  redis?: RedisConnection;
}

/**
 * Routes runs to their shards. The current layout is `count` shards; shard counts used before are
 * recorded in `P:run.shard-counts`, so that a run enqueued under an older count is still found
 * (lookups try its shard under every recorded count) and still consumed (workers consume every
 * shard of every recorded layout). With one shard the layout is the deployment prefix itself,
 * which keeps every key name of a single-node deployment as it was before sharding.
 */
export class RunShardRouter {
  /** Shards of the current layout. */
  readonly count: number;
  /** The deployment's global prefix (hash-tagged on a cluster). */
  readonly prefix: string;
  private readonly redis: RedisConnection | undefined;
  private readonly shards = new Map<string, RunShard>();

  constructor(options: RunShardRouterOptions) {
    const count = options.count ?? defaultRunShardCount(options.cluster);
    if (!Number.isInteger(count) || count < 1 || count > MAX_RUN_SHARDS) {
      throw new AgentqError({
        code: 'VALIDATION',
        field: 'AGENTQ_RUN_SHARDS',
        message: `run shard count must be 1-${MAX_RUN_SHARDS}`,
      });
    }
    this.count = count;
    this.prefix = keyPrefix({ prefix: untaggedPrefix(options.prefix), cluster: options.cluster });
    this.redis = options.redis;
  }

  /** Shard `index`, or the single-shard layout for `undefined`. */
  shard(index: number | undefined): RunShard {
    const id = index === undefined ? 'main' : `r${index}`;
    let shard = this.shards.get(id);
    if (!shard) {
      const prefix = index === undefined ? this.prefix : runShardTag(this.prefix, index);
      shard = { index, prefix, keys: keyNames(prefix), label: id };
      this.shards.set(id, shard);
    }
    return shard;
  }

  /** The shard of a run under `count` shards (the current count by default). */
  forRun(runId: string, count = this.count): RunShard {
    return count === 1 ? this.shard(undefined) : this.shard(runShardIndex(runId, count));
  }

  /** The shard an approval belongs to, read from its id. */
  forApproval(approvalId: string): RunShard {
    return this.shard(approvalShardIndex(approvalId));
  }

  /** Every shard of the current layout. */
  all(): RunShard[] {
    return layoutShards(this, this.count);
  }

  /** Shard counts recorded for this deployment, the current one included. */
  async knownCounts(): Promise<number[]> {
    const counts = new Set([this.count]);
    if (this.redis) {
      for (const text of await this.redis.smembers(keyNames(this.prefix).runShardCounts)) {
        const count = Number(text);
        if (Number.isInteger(count) && count >= 1 && count <= MAX_RUN_SHARDS) counts.add(count);
      }
    }
    return [...counts];
  }

  /**
   * Records the current shard count in the layout history. A deployment that ran before sharding
   * left its runs under the deployment prefix: when its run queue exists, the single-shard layout
   * is recorded too, so those runs stay readable and consumed.
   */
  async record(): Promise<void> {
    if (!this.redis) return;
    const keys = keyNames(this.prefix);
    const counts = [String(this.count)];
    if (this.count !== 1 && (await this.redis.exists(keys.queueMeta(QUEUE_NAMES.agentRuns))) === 1) counts.push('1');
    await this.redis.sadd(keys.runShardCounts, ...counts);
  }

  /** Shards a run may live in: its shard under the current count first, then under every recorded count. */
  async candidatesFor(runId: string): Promise<RunShard[]> {
    const out = [this.forRun(runId)];
    for (const count of await this.knownCounts()) {
      const shard = this.forRun(runId, count);
      if (!out.includes(shard)) out.push(shard);
    }
    return out;
  }

  /** Every shard of every recorded layout: what workers consume unless told otherwise. */
  async everyKnownShard(): Promise<RunShard[]> {
    const out: RunShard[] = [];
    for (const count of (await this.knownCounts()).sort((a, b) => b - a)) {
      for (const shard of layoutShards(this, count)) if (!out.includes(shard)) out.push(shard);
    }
    return out;
  }
}

function layoutShards(router: RunShardRouter, count: number): RunShard[] {
  if (count === 1) return [router.shard(undefined)];
  return Array.from({ length: count }, (_, index) => router.shard(index));
}
