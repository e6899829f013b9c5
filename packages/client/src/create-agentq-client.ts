import { Queue } from 'bullmq';
import { createKnowledgeBaseReader, KnowledgeBaseStore, type KbSearchHit, type KnowledgeBaseReader } from '@agentq/kb';
import {
  AgentqError,
  QUEUE_NAMES,
  createRunSpecSchema,
  keyPrefix,
  silentLogger,
  type Logger,
  type RunSpecLimits,
  type RunSpecSchema,
  type DecisionRecord,
  type ElicitationResponseRecord,
  type KbDefinition,
  type RunResult,
  type ServerDefinition,
  type ServerOrigin,
  type ServerPolicy,
} from '@agentq/shared';
import {
  ServerStore,
  createRedisConnection,
  CatalogStore,
  keyNames,
  isClusterConnection,
  parseRedisUrl,
  RunShardRouter,
  RunStore,
  waitForRedis,
  type RedisConnection,
  type RunShard,
} from '@agentq/store';
import { decide, type ClientDecisionInput } from './approvals/decide.js';
import { getApproval, type ApprovalInfo } from './approvals/get-approval.js';
import { listPendingApprovals, type PendingApprovalInfo } from './approvals/list-pending-approvals.js';
import {
  answerElicitation,
  getElicitation,
  listPendingElicitations,
  type ElicitationAnswerInput,
  type ElicitationInfo,
} from './elicitations/elicitations.js';
import type { ClientContext } from './client-context.js';
import { getCatalog, getCatalogSnapshot, type CatalogSnapshotView, type CatalogView } from './catalog/get-catalog.js';
import { cancelRun, type CancelledRun } from './runs/cancel-run.js';
import {
  enqueueRun,
  parsedRunSpecSchemaOf,
  type EnqueueRunOptions,
  type EnqueuedRun,
  type ParsedRunSpecSchema,
} from './runs/enqueue-run.js';
import {
  addKbSource,
  addKbSources,
  createKb,
  getKb,
  getKbIngest,
  listKbs,
  removeKb,
  removeKbDocument,
  searchKbs,
  type AddKbSourceOptions,
  type AddedKbSource,
  type KbInfo,
  type KbIngestInfo,
} from './kbs/manage-kbs.js';
import { getRun, type RunInfo } from './runs/get-run.js';
import { getRunTimeline, type RunTimeline } from './runs/get-run-timeline.js';
import { listRuns, type ListRunsInput, type RunList } from './runs/list-runs.js';
import { waitForRun, type WaitForRunOptions } from './runs/wait-for-run.js';
import { listSchedules } from './schedules/list-schedules.js';
import { removeSchedule } from './schedules/remove-schedule.js';
import { scheduleRun, type Schedule, type ScheduleRunInput } from './schedules/schedule-run.js';
import {
  listServers,
  putServer,
  removeServer,
  requestServerRefresh,
  setServerEnabled,
  type ServerInfo,
} from './servers/manage-servers.js';

/** Options of {@link createAgentqClient}. Give `redisUrl` or `connection`. */
export interface AgentqClientOptions {
  /** Redis to connect to; the client owns and closes this connection. */
  redisUrl?: string;
  /** An existing producer connection; the client never closes it. */
  connection?: RedisConnection;
  /**
   * Key prefix of the deployment (`AGENTQ_PREFIX`).
   * @default 'agentq'
   */
  prefix?: string;
  /**
   * Redis Cluster: hash-tags the prefix, the run shards and the per-server keys. Implied by
   * `clusterNodes` and by a `redis+cluster://` URL.
   * @default false
   */
  cluster?: boolean;
  /** Seed nodes of the cluster (`AGENTQ_REDIS_CLUSTER_NODES`). */
  clusterNodes?: ReadonlyArray<{ host: string; port: number }>;
  /**
   * Run shards of the deployment (`AGENTQ_RUN_SHARDS`); give the workers' value.
   * @default 1 on a single Redis, 16 on a cluster
   */
  runShards?: number;
  /** @default a silent logger */
  logger?: Logger;
  /**
   * Attempts of a run whose model provider fails (`AGENTQ_RUN_ATTEMPTS`).
   * @default 5
   */
  runAttempts?: number;
  /**
   * What server definitions written through {@link AgentqClient.putServer} may do: stdio commands
   * (`AGENTQ_ALLOW_STDIO_FROM_API`, `AGENTQ_STDIO_COMMANDS`) and secrets (`AGENTQ_SECRET_NAMES`,
   * `AGENTQ_SECRET_HOSTS`). The client enforces it itself, since it writes to Redis directly.
   * @default read from `process.env` of this process (`serverPolicyFromEnv`)
   */
  serverPolicy?: ServerPolicy;
  /**
   * Size and count limits of run specs (`AGENTQ_MAX_INPUT_BYTES`, `AGENTQ_MAX_MCP_SERVERS`). Give
   * the deployment's values, so that the client refuses exactly what the worker would refuse.
   * @default defaultRunSpecLimits
   */
  runSpecLimits?: Partial<RunSpecLimits>;
  /**
   * Folder under which file sources added with `origin: 'api'` must lie (`AGENTQ_KB_FILE_ROOT`).
   * Unset, such sources are refused (`FORBIDDEN`); `local` sources are not affected.
   */
  kbFileRoot?: string;
}

/** Options of {@link AgentqClient.putServer}. */
export interface ServerWriteOptions {
  /**
   * `api` for definitions that come from another service or a caller; `operator` only for the
   * deployment's own tools (the CLI). An `api` stdio definition needs the operator's opt-in
   * (`FORBIDDEN` otherwise) and may name only secrets bound to hosts.
   * @default 'api'
   */
  origin?: ServerOrigin;
}

/** The typed producer API of agentq. Every input is validated before anything is written. */
export interface AgentqClient {
  /** The key prefix in use (hash-tagged under cluster mode). */
  readonly prefix: string;
  /** The deployment's run shards, as this client routes them. */
  readonly shards: RunShardRouter;
  /** The producer connection, for health checks. */
  readonly redis: RedisConnection;
  /** The run spec schema under this client's limits: what `enqueueRun` and `scheduleRun` accept. */
  readonly runSpecSchema: RunSpecSchema;
  /**
   * `runSpecSchema`, whose result `enqueueRun` takes without parsing it again: for a caller that
   * validates a spec inside a larger input (the REST API's request body). What it returns is deeply
   * frozen, so the spec enqueued is the spec checked.
   */
  readonly parsedRunSpecSchema: ParsedRunSpecSchema;
  enqueueRun(spec: unknown, options?: EnqueueRunOptions): Promise<EnqueuedRun>;
  getRun(runId: string): Promise<RunInfo>;
  /**
   * A run step by step, as its page shows it: each step's text and tool calls with their input,
   * result, status and duration, calls a meta tool made, and approvals with who decided.
   */
  getRunTimeline(runId: string): Promise<RunTimeline>;
  /** Recent runs, newest first, optionally in one state, a page at a time. */
  listRuns(input?: ListRunsInput): Promise<RunList>;
  waitForRun(runId: string, options?: WaitForRunOptions): Promise<RunResult>;
  cancelRun(runId: string): Promise<CancelledRun>;
  scheduleRun(scheduleId: string, schedule: ScheduleRunInput): Promise<Schedule>;
  listSchedules(): Promise<Schedule[]>;
  removeSchedule(scheduleId: string): Promise<void>;
  /** Pending approvals, optionally of one run, soonest expiry first. */
  listPendingApprovals(filter?: { runId?: string }): Promise<PendingApprovalInfo[]>;
  /**
   * Records a decision once (`ALREADY_DECIDED` after that or once the run was cancelled or removed,
   * `EXPIRED` past the timeout, `NOT_FOUND` for an unknown id) and wakes the parked run. The record keeps who decided (`decidedBy`, by
   * default this process's OS user), when, and through which path (`via`, by default `client`).
   */
  decide(input: ClientDecisionInput): Promise<DecisionRecord>;
  /** One approval's record with its decision, if any: who decided, when and how. `NOT_FOUND` when unknown. */
  getApproval(approvalId: string): Promise<ApprovalInfo>;
  /** Unanswered elicitations (questions MCP servers with policy `ask` put to a person), soonest expiry first. */
  listPendingElicitations(filter?: { runId?: string }): Promise<ElicitationInfo[]>;
  /** One elicitation: the question, its form schema and, once settled, the answer. `NOT_FOUND` when unknown. */
  getElicitation(elicitationId: string): Promise<ElicitationInfo>;
  /**
   * Answers an elicitation once (`VALIDATION` when the content breaks the requested schema,
   * `ALREADY_DECIDED`, `EXPIRED`, `NOT_FOUND`) and wakes the parked run.
   */
  answerElicitation(input: ElicitationAnswerInput): Promise<ElicitationResponseRecord>;
  listServers(): Promise<ServerInfo[]>;
  /**
   * Creates or replaces a server definition. As `api` (the default) a stdio transport is refused
   * with `FORBIDDEN` unless the operator allowed it, and every `${NAME}` must be a secret bound to
   * hosts (`VALIDATION` naming it otherwise).
   */
  putServer(definition: unknown, options?: ServerWriteOptions): Promise<ServerDefinition>;
  removeServer(serverId: string): Promise<void>;
  /**
   * Imports a YAML or JSON servers file, all or nothing (`IMPORT_INVALID` names the file, server
   * and field). Returns the imported definitions.
   */
  importServers(path: string): Promise<ServerDefinition[]>;
  setServerEnabled(serverId: string, enabled: boolean): Promise<ServerDefinition>;
  /** Re-reads the server's tool list now (deduplicated per server). */
  refreshServer(serverId: string): Promise<void>;
  /** Reconnects to the server, then re-reads its tool list. */
  restartServer(serverId: string): Promise<void>;
  getCatalog(serverId: string): Promise<CatalogView>;
  /** The tool definitions of one catalog version of a server, as pinned by the runs shown it. */
  getCatalogSnapshot(serverId: string, version: string): Promise<CatalogSnapshotView>;
  /** Creates a knowledge base (`CONFLICT` when the name is taken). */
  createKb(input: { name: string; description?: string }): Promise<KbDefinition>;
  /** Every knowledge base with its current version and documents. */
  listKbs(): Promise<KbInfo[]>;
  /** One knowledge base (`NOT_FOUND` when unknown). */
  getKb(name: string): Promise<KbInfo>;
  /** Removes a knowledge base with every version and chunk. */
  removeKb(name: string): Promise<void>;
  /** Removes one document from a knowledge base, as a new version. */
  removeKbDocument(input: { kb: string; documentId: string }): Promise<{ version: number }>;
  /**
   * Enqueues `kb-ingest` jobs for `{ path }` (a file, or every supported file of a folder) or
   * `{ url }`. Re-adding unchanged content is a no-op in the indexer.
   */
  addKbSource(kb: string, source: unknown, options?: AddKbSourceOptions): Promise<AddedKbSource>;
  /**
   * Adds several sources all or nothing: every source is checked before any job is enqueued, so
   * one missing file or malformed URL queues nothing.
   */
  addKbSources(kb: string, sources: readonly unknown[], options?: AddKbSourceOptions): Promise<AddedKbSource>;
  /** The state of one ingest job. */
  getKbIngest(jobId: string): Promise<KbIngestInfo>;
  /** Ranks chunks of the named knowledge bases (Redis only; the same reader `kb_search` uses). */
  searchKbs(input: { query: string; kbs: readonly string[]; limit?: number }): Promise<KbSearchHit[]>;
  /** Closes the queues, and the connection when the client opened it. Idempotent. */
  close(): Promise<void>;
}

/** Creates an {@link AgentqClient}. */
export function createAgentqClient(options: AgentqClientOptions): AgentqClient {
  if (!options.connection && !options.redisUrl) {
    throw new AgentqError({ code: 'VALIDATION', field: 'redisUrl', message: 'Give redisUrl or connection' });
  }
  const cluster =
    options.cluster === true ||
    (options.clusterNodes?.length ?? 0) > 0 ||
    (options.redisUrl !== undefined && parseRedisUrl(options.redisUrl).cluster) ||
    (options.connection !== undefined && isClusterConnection(options.connection));
  const prefix = keyPrefix({ prefix: options.prefix ?? 'agentq', cluster });
  const ownsConnection = !options.connection;
  const redis =
    options.connection ??
    createRedisConnection({
      url: options.redisUrl as string,
      role: 'producer',
      cluster,
      nodes: options.clusterNodes,
      name: 'agentq-client',
    });
  const logger = (options.logger ?? silentLogger()).child({ component: 'agentq-client' });
  // Producer connections fail fast instead of queueing; an error event without a listener would
  // crash the process, and the failing command already reports the problem to its caller.
  if (ownsConnection) redis.on('error', (error: Error) => logger.debug({ error: error.message }, 'redis error'));
  const queue = (name: string, queuePrefix = prefix) => {
    const created = new Queue(name, { connection: redis, prefix: queuePrefix });
    // Without a listener BullMQ prints every connection error; the failing call reports it anyway.
    created.on('error', (error: Error) => logger.debug({ queue: name, error: error.message }, 'queue error'));
    return created;
  };
  const shardQueues = new Map<string, Queue>();
  const shardQueue = (name: string, shard: RunShard): Queue => {
    const id = `${name}\0${shard.prefix}`;
    let opened = shardQueues.get(id);
    if (!opened) {
      opened = queue(name, shard.prefix);
      shardQueues.set(id, opened);
    }
    return opened;
  };
  const runStores = new Map<string, RunStore>();
  const runStoreOf = (shard: RunShard): RunStore => {
    let store = runStores.get(shard.prefix);
    if (!store) {
      store = new RunStore({ redis, prefix: shard.prefix, logger });
      runStores.set(shard.prefix, store);
    }
    return store;
  };
  let reader: KnowledgeBaseReader | undefined;
  const context: ClientContext = {
    redis,
    prefix,
    keys: keyNames(prefix),
    queues: {
      refresh: queue(QUEUE_NAMES.catalogRefresh),
      kbIngest: queue(QUEUE_NAMES.kbIngest),
    },
    shards: new RunShardRouter({ prefix, cluster, count: options.runShards, redis }),
    runsQueueOf: (shard) => shardQueue(QUEUE_NAMES.agentRuns, shard),
    approvalsQueueOf: (shard) => shardQueue(QUEUE_NAMES.approvals, shard),
    runStoreOf,
    kbs: new KnowledgeBaseStore({ redis, prefix }),
    kbReader: () => (reader ??= createKnowledgeBaseReader({ redis, keyPrefix: prefix, logger })),
    kbFileRoot: options.kbFileRoot,
    servers: new ServerStore({ redis, prefix, logger, policy: options.serverPolicy }),
    catalog: new CatalogStore({ redis, prefix, logger }),
    logger,
    runAttempts: options.runAttempts ?? 5,
    runSpecSchema: createRunSpecSchema(options.runSpecLimits),
  };
  let closing: Promise<void> | undefined;
  // The producer connection fails fast instead of queueing commands, so a call made right after
  // creating the client waits for the first connect (bounded) rather than failing at once.
  const ready = async () => {
    if (redis.status !== 'ready') await waitForRedis(redis, 5_000);
  };
  const guard =
    <A extends unknown[], R>(operation: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await ready();
      return await operation(...args);
    };

  return {
    prefix,
    shards: context.shards,
    redis,
    runSpecSchema: context.runSpecSchema,
    parsedRunSpecSchema: parsedRunSpecSchemaOf(context.runSpecSchema),
    enqueueRun: guard((spec, enqueueOptions) => enqueueRun(context, { spec, options: enqueueOptions })),
    getRun: guard((runId) => getRun(context, runId)),
    getRunTimeline: guard((runId) => getRunTimeline(context, runId)),
    listRuns: guard((input) => listRuns(context, input)),
    waitForRun: guard((runId, waitOptions) => waitForRun(context, { runId, options: waitOptions })),
    cancelRun: guard((runId) => cancelRun(context, runId)),
    scheduleRun: guard((scheduleId, schedule) => scheduleRun(context, { scheduleId, schedule })),
    listSchedules: guard(() => listSchedules(context)),
    removeSchedule: guard((scheduleId) => removeSchedule(context, scheduleId)),
    listPendingApprovals: guard((filter) => listPendingApprovals(context, filter ?? {})),
    decide: guard((input) => decide({ ...context, queueOf: context.approvalsQueueOf }, input)),
    getApproval: guard((approvalId) => getApproval(context, approvalId)),
    listPendingElicitations: guard((filter) => listPendingElicitations(context, filter ?? {})),
    getElicitation: guard((elicitationId) => getElicitation(context, elicitationId)),
    answerElicitation: guard((input) => answerElicitation({ ...context, queueOf: context.approvalsQueueOf }, input)),
    listServers: guard(() => listServers(context)),
    putServer: guard((definition, putOptions) => putServer(context, definition, putOptions?.origin ?? 'api')),
    removeServer: guard((serverId) => removeServer(context, serverId)),
    importServers: guard((path) => context.servers.importFile(path)),
    setServerEnabled: guard((serverId, enabled) => setServerEnabled(context, { serverId, enabled })),
    refreshServer: guard((serverId) => requestServerRefresh(context, { serverId, reason: 'on-demand' })),
    restartServer: guard((serverId) => requestServerRefresh(context, { serverId, reason: 'restart' })),
    getCatalog: guard((serverId) => getCatalog(context, serverId)),
    getCatalogSnapshot: guard((serverId, version) => getCatalogSnapshot(context, serverId, version)),
    createKb: guard((input) => createKb(context, input)),
    listKbs: guard(() => listKbs(context)),
    getKb: guard((name) => getKb(context, name)),
    removeKb: guard((name) => removeKb(context, name)),
    removeKbDocument: guard((input) => removeKbDocument(context, input)),
    addKbSource: guard((kb, source, addOptions) => addKbSource(context, { kb, source, options: addOptions })),
    addKbSources: guard((kb, sources, addOptions) => addKbSources(context, { kb, sources, options: addOptions })),
    getKbIngest: guard((jobId) => getKbIngest(context, jobId)),
    searchKbs: guard((input) => searchKbs(context, input)),
    close() {
      closing ??= (async () => {
        for (const open of [...Object.values(context.queues), ...shardQueues.values()]) {
          try {
            await open.close();
          } catch (error) {
            logger.warn({ error: (error as Error).message }, 'closing a queue failed');
          }
        }
        if (ownsConnection) {
          try {
            await redis.quit();
          } catch {
            redis.disconnect();
          }
        }
      })();
      return closing;
    },
  };
}
