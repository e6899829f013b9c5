/** Most run shards a deployment may use (`AGENTQ_RUN_SHARDS`). */
export const MAX_RUN_SHARDS = 256;

/** Run shards on a Redis Cluster when `AGENTQ_RUN_SHARDS` is not set: enough to cover every master of a usual cluster. */
export const DEFAULT_CLUSTER_RUN_SHARDS = 16;

/** The run shard count used when `AGENTQ_RUN_SHARDS` is not set: 1 on a single Redis, 16 on a cluster. */
export function defaultRunShardCount(cluster: boolean): number {
  return cluster ? DEFAULT_CLUSTER_RUN_SHARDS : 1;
}
