import { type Logger } from '@agentq/shared';
import { RunShardRouter, type RedisConnection, type RunShard } from '@agentq/store';
import type { Queue } from 'bullmq';

/** Where approvals live: the connection, the deployment's prefix and run shards, and for `decide` the queues. */
export interface ApprovalContext {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  /**
   * The deployment's run shards; an approval lives in its run's shard, which its id names.
   * @default one shard under `prefix` (a single-node deployment with `AGENTQ_RUN_SHARDS=1`)
   */
  shards?: RunShardRouter;
  /**
   * The `approvals` queue of a shard, to promote a decided approval's job. When absent, `decide`
   * opens one on `redis` for the call.
   */
  queueOf?: (shard: RunShard) => Queue;
  logger?: Logger;
}

/** The context's run shards, or the single-shard layout under its prefix. */
export function approvalShards(context: Pick<ApprovalContext, 'redis' | 'prefix' | 'shards'>): RunShardRouter {
  if (context.shards) return context.shards;
  const cluster = context.prefix.startsWith('{') && context.prefix.endsWith('}');
  return new RunShardRouter({ prefix: context.prefix, cluster, count: 1, redis: context.redis });
}
