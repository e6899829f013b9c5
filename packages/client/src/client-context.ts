import type { Queue } from 'bullmq';
import type { KnowledgeBaseReader, KnowledgeBaseStore } from '@agentq/kb';
import type { Logger, RunSpecSchema } from '@agentq/shared';
import type {
  CatalogStore,
  KeyNames,
  RedisConnection,
  RunShard,
  RunShardRouter,
  RunStore,
  ServerStore,
} from '@agentq/store';

/**
 * What every client operation needs: one producer connection, the queues it writes to, and the
 * key names of the deployment. Built once by `createAgentqClient` and shared by its methods.
 */
export interface ClientContext {
  redis: RedisConnection;
  /** Key prefix, hash-tagged under cluster mode; also the BullMQ `prefix`. */
  prefix: string;
  keys: KeyNames;
  queues: {
    refresh: Queue;
    kbIngest: Queue;
  };
  /** The deployment's run shards: a run's id decides its shard. */
  shards: RunShardRouter;
  /** The `agent-runs` queue of a shard (opened once, closed with the client). */
  runsQueueOf(shard: RunShard): Queue;
  /** The `approvals` queue of a shard (opened once, closed with the client). */
  approvalsQueueOf(shard: RunShard): Queue;
  /** The run records (checkpoints and tool-result journals) of a shard, read as the worker reads them. */
  runStoreOf(shard: RunShard): RunStore;
  kbs: KnowledgeBaseStore;
  /** The client's knowledge base reader, made on first use (it keeps loaded KB versions). */
  kbReader: () => KnowledgeBaseReader;
  /** Folder under which `api`-origin file sources must lie (`AGENTQ_KB_FILE_ROOT`); unset, none may. */
  kbFileRoot: string | undefined;
  servers: ServerStore;
  /** The catalog cache: entries, statuses and what warmers learned of each server. */
  catalog: CatalogStore;
  logger: Logger;
  /** Attempts of a run job whose model provider fails (exponential backoff). */
  runAttempts: number;
  /** The run spec schema under the deployment's limits; producers parse with it before adding. */
  runSpecSchema: RunSpecSchema;
}
