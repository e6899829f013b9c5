import type {
  CatalogReader,
  McpToolCaller,
  ToolEnrichmentStore,
  ToolExecSandbox,
  ToolRegistry,
  ToolVectorStore,
} from '@agentq/registry';
import type { Config, Logger, SecretValueSet } from '@agentq/shared';
import type { CatalogStore, RedisConnection, RunStore } from '@agentq/store';
import type { Queue } from 'bullmq';
import type { ModelResolver } from '../models/create-model-resolver.js';

/** The catalog reads pinning needs: snapshots of catalog versions, and the live entry at call time. */
export type RunCatalogSnapshots = Pick<CatalogStore, 'pinSnapshots' | 'readSnapshot' | 'read'>;

/** What the run processor works with; one set per run shard a worker consumes. */
export interface RunProcessorDependencies {
  store: RunStore;
  /** Request/response connection for checkpoints and approval records. */
  redis: RedisConnection;
  /** The run shard's prefix (BullMQ prefix of its queues, prefix of its run keys). */
  prefix: string;
  /** The run shard's number; absent in the single-shard layout. It is part of every approval id. */
  shardIndex?: number;
  registry: ToolRegistry;
  reader: CatalogReader;
  /**
   * The catalog under the deployment's prefix, for the snapshots runs are pinned to (see
   * `pinRunTools`). @default none: runs show the live catalog and pin nothing
   */
  catalog?: RunCatalogSnapshots;
  caller: McpToolCaller;
  models: ModelResolver;
  approvalsQueue: Queue;
  /**
   * `maxInputBytes` and `maxMcpServers` set the run spec limits, `maxToolCallsPerStep` the calls one
   * model step may execute, `toolResultMaxBytes` the text one MCP tool result keeps,
   * `allowPrivateFetch`, `fetchAllowHosts`, `inputDownloadMaxBytes` and `inputDownloadTimeoutMs` the
   * downloads of the messages' image and file URLs; the defaults apply without them.
   */
  config: Pick<Config, 'approvalTimeoutMs'> &
    Partial<
      Pick<
        Config,
        | 'maxInputBytes'
        | 'maxMcpServers'
        | 'traceArguments'
        | 'maxToolCallsPerStep'
        | 'toolResultMaxBytes'
        | 'allowPrivateFetch'
        | 'fetchAllowHosts'
        | 'inputDownloadMaxBytes'
        | 'inputDownloadTimeoutMs'
      >
    >;
  /** This worker's id, recorded on run spans. */
  workerId?: string;
  /**
   * Key of the approval signatures the model loop checks.
   * @default 32 random bytes per processor
   */
  approvalSecret?: Uint8Array;
  logger: Logger;
  /**
   * The process's secret values, masked out of every tool result before it is journaled,
   * checkpointed, returned or shown to the model.
   * @default nothing masked
   */
  secrets?: SecretValueSet;
  /** Environment of the test crash hooks. */
  env: Record<string, string | undefined>;
  /**
   * Hybrid tool search, when `AGENTQ_EMBEDDING_MODEL` is set: the warmers' stored tool vectors and
   * the query embedder. Absent: `tool_search` is lexical.
   */
  embedding?: {
    vectors: ToolVectorStore;
    embedQuery: (query: string, signal: AbortSignal | undefined) => Promise<number[] | undefined>;
  };
  /**
   * The warmers' stored example requests, when `AGENTQ_SEARCH_ENRICH_MODEL` is set: read with the
   * vectors when a server's catalog version moves, and indexed as tool search's `examples` field.
   * Absent: no examples.
   */
  enrichments?: ToolEnrichmentStore;
  /**
   * The code sandbox, when `AGENTQ_CODE_MODE=allowed`: runs whose settings turn `codeMode` on get
   * `tool_exec`. Absent: no run gets it.
   */
  codeSandbox?: ToolExecSandbox;
}
