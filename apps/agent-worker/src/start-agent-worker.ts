import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { registerBuiltinTools, type KnowledgeBaseReader } from '@agentq/builtin-tools';
import { createCodeSandbox } from '@agentq/code-sandbox';
import {
  createCatalogReader,
  createQueryEmbedder,
  createToolEnrichmentStore,
  createToolVectorStore,
  ToolRegistry,
  type ToolExecSandbox,
} from '@agentq/registry';
import { createEmbedder } from '@agentq/models';
import {
  AgentqError,
  allowListedSecretValues,
  createSecretValueSet,
  keyPrefix,
  QUEUE_NAMES,
  secretValuesOf,
  type Config,
  startHealthListener,
  type HealthListener,
  type Logger,
  withBullmqErrors,
} from '@agentq/shared';
import {
  CachedSessionGenerations,
  CatalogStore,
  createRedisConnection,
  expireRunState,
  keyNames,
  RunShardRouter,
  RunStore,
  requestRefresh,
  ServerSessions,
  redisAnswers,
  type RedisConnection,
  type RunShard,
} from '@agentq/store';
import { OAuthTokenStore } from '@agentq/store';
import { Queue, Worker, type Job } from 'bullmq';
import { createApprovalProcessor } from './approvals/create-approval-processor.js';
import { createElicitationProcessor } from './elicitations/create-elicitation-processor.js';
import { createDecisionProcessor } from './approvals/create-decision-processor.js';
import { sweepDecidedApprovals } from './approvals/sweep-decided-approvals.js';
import { sweepUnreadableElicitations } from './elicitations/sweep-unreadable-elicitations.js';
import { codeSandboxLimitsOf } from './code-sandbox-limits.js';
import { McpClientPool } from './mcp/mcp-client-pool.js';
import { createModelResolver, type ModelResolver } from './models/create-model-resolver.js';
import { createRunProcessor } from './run/create-run-processor.js';
import { followToolEnrichments } from './search/follow-tool-enrichments.js';
import { resolveWorkerTuning, type AgentWorkerTuning } from './worker-options.js';

/** Options of {@link startAgentWorker}. */
export interface AgentWorkerOptions {
  config: Config;
  logger: Logger;
  /**
   * Environment for `${ENV}` placeholders of MCP server definitions (and test crash hooks).
   * @default process.env
   */
  env?: Record<string, string | undefined>;
  /** Worker id, shown in logs. @default `<host>-<pid>-<random>` */
  id?: string;
  /** Lock, stall, pool and sweeper tuning. */
  tuning?: AgentWorkerTuning;
  /**
   * Reads knowledge bases for the `kb_search` and `kb_list` tools. Without one, those tools
   * answer runs with a `KB_UNAVAILABLE` tool error.
   * @default none
   */
  knowledgeBaseReader?: KnowledgeBaseReader;
  /**
   * Turns a run's `assistant.model` into a model; tests pass one that records what the model saw.
   * @default the providers configured in `config`
   */
  models?: ModelResolver;
}

/** A running agent worker. */
export interface AgentWorker {
  readonly id: string;
  /**
   * Stops taking jobs, lets active runs finish (or, after `closeTimeoutMs`, releases them to
   * resume elsewhere from their checkpoint), closes the MCP pool and the connections. Idempotent.
   */
  close(): Promise<void>;
  /** Port of the health listener (`AGENTQ_WORKER_HEALTH_PORT`), when one runs. */
  readonly healthPort: number | undefined;
}

/**
 * Starts an agent worker: it consumes `agent-runs` (runs) and `approvals` (approval timeouts and
 * decisions) of every run shard it is given (`AGENTQ_WORKER_SHARDS`, by default all), and
 * `decisions` (decisions sent as jobs); it sweeps decided approvals whose job was never promoted.
 */
export async function startAgentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const { config } = options;
  const id = options.id ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  // `role` names the process role; `component` is left to the parts below, so no line carries it twice.
  const logger = options.logger.child({ role: 'agent-worker', workerId: id });
  const env = options.env ?? process.env;
  const tuning = resolveWorkerTuning(options.tuning ?? {}, { config, logger });
  const prefix = keyPrefix({ prefix: config.prefix, cluster: config.cluster });
  // Each connection is named `agentq-worker-<id>[-<role>]` in `CLIENT LIST`, and logs its errors.
  const openConnection = (role?: string): RedisConnection => {
    const opened = createRedisConnection({
      url: config.redisUrl,
      role: 'worker',
      cluster: config.cluster,
      nodes: config.clusterNodes,
      name: role ? `agentq-worker-${id}-${role}` : `agentq-worker-${id}`,
    });
    opened.on('error', (error: Error) => logger.warn({ error: error.message }, 'redis connection error'));
    return opened;
  };
  const connection = openConnection();

  const router = new RunShardRouter({
    prefix: config.prefix,
    cluster: config.cluster,
    count: config.runShards,
    redis: connection,
  });
  await router.record();
  const shards = selectShards(await router.everyKnownShard(), config.workerShards);
  if (shards.length === 0) {
    throw new AgentqError({
      code: 'VALIDATION',
      field: 'AGENTQ_WORKER_SHARDS',
      message: `none of the shards ${String(config.workerShards)} exists under ${router.count} run shards`,
    });
  }
  // One concurrency budget per process, split over the shards it consumes (rounded up), so a
  // worker on 16 shards with concurrency 64 runs up to 4 runs of each.
  const shardConcurrency = Math.max(1, Math.ceil(tuning.concurrency / shards.length));

  const queueOptions = { connection, prefix };
  const refreshQueue = new Queue(QUEUE_NAMES.catalogRefresh, queueOptions);
  const approvalsQueues = new Map<string, Queue>();
  const approvalsQueueOf = (shard: RunShard): Queue => {
    let queue = approvalsQueues.get(shard.prefix);
    if (!queue) {
      queue = new Queue(QUEUE_NAMES.approvals, { connection, prefix: shard.prefix });
      approvalsQueues.set(shard.prefix, queue);
    }
    return queue;
  };
  // The catalog reads of every run start go over a connection of their own that holds no Lua
  // scripts: ioredis copies each script defined on a connection into every pipeline made on it,
  // and BullMQ defines its 60-odd on the main one (about 80 µs per pipeline there, 5 µs here).
  const readConnection = openConnection('reads');
  const reader = createCatalogReader({
    redis: readConnection,
    prefix,
    logger,
    budget: { maxEntryBytes: config.maxCatalogEntryBytes, maxTools: config.maxToolsPerServer },
    // Cache-only: a cold or corrupt server contributes nothing to this run; the reader asks the
    // warmers again at most every 30 s while it stays so.
    onColdServer: async (serverId) => {
      await requestRefresh(refreshQueue, { serverId, reason: 'first-seen' });
    },
  });
  // The snapshots of the catalog versions runs were shown live under the deployment's prefix.
  const catalog = new CatalogStore({ redis: connection, prefix, logger });
  // Every secret this process holds or resolves is masked out of tool results: a tool that echoes
  // a header, a key or a URL must not hand it to the journal, the checkpoint or the model.
  const secrets = createSecretValueSet([...secretValuesOf(config), ...allowListedSecretValues(env)]);
  // Session generations are compared before every MCP call; this keeps them in memory for a
  // moment and drops one as soon as a restart is announced (see `CachedSessionGenerations`).
  const sessionSubscriber = openConnection('sessions');
  const sessionGenerations = new CachedSessionGenerations({
    reader: new ServerSessions({ redis: connection, prefix }),
    subscriber: sessionSubscriber,
    channel: keyNames(prefix).serverSessionRenewed,
    logger,
  });
  // Not awaited: until it has subscribed (Redis may not be up yet), every call reads Redis.
  void sessionGenerations.start();
  const pool = new McpClientPool({
    logger,
    env,
    secrets,
    idleMs: tuning.mcpIdleMs,
    maxClients: tuning.mcpPoolSize,
    allowPrivateFetch: config.allowPrivateFetch,
    allowHosts: config.fetchAllowHosts,
    errorBodyMaxBytes: config.errorBodyMaxBytes,
    toolResultMaxBytes: config.toolResultMaxBytes,
    oauth: config.secretKey
      ? { store: new OAuthTokenStore({ redis: connection, keys: keyNames(prefix), secretKey: config.secretKey }) }
      : undefined,
    sessions: sessionGenerations,
  });
  const registry = new ToolRegistry({ logger });
  // Always registered; each run's settings decide which of them it gets.
  registerBuiltinTools(registry, { config, env, knowledgeBaseReader: options.knowledgeBaseReader });
  const models = options.models ?? createModelResolver({ config });
  // Hybrid search when an embedding model is configured; a missing key fails start-up here.
  const embedder = createEmbedder(config);
  const embedding = embedder
    ? {
        vectors: createToolVectorStore({ redis: connection, prefix, modelId: embedder.modelId }),
        embedQuery: createQueryEmbedder(embedder),
      }
    : undefined;

  // Description enrichment: the worker only reads what the warmers' model wrote (no model here).
  const enrichments = config.searchEnrichModel
    ? createToolEnrichmentStore({ redis: connection, prefix, modelId: config.searchEnrichModel, logger })
    : undefined;
  // Examples a warmer writes after a list reach this process's index when it announces them.
  const enrichmentFollower = enrichments
    ? followToolEnrichments({ registry, store: enrichments, subscriber: sessionSubscriber, prefix, logger })
    : undefined;

  // One sandbox thread per worker process, started by the first script: only where the operator
  // allows code mode, and only runs that turn it on use it.
  const sandbox =
    config.codeMode === 'allowed' ? createCodeSandbox({ limits: codeSandboxLimitsOf(config) }) : undefined;
  // Started in the background now, so the first script does not pay for the thread and its module.
  sandbox?.warm().catch((error: Error) => logger.warn({ error: error.message }, 'code sandbox did not start'));
  const codeSandbox: ToolExecSandbox | undefined = sandbox
    ? ({ code, toolNames, callTool, signal }) => sandbox.run({ code, host: { toolNames, callTool }, signal })
    : undefined;

  const runWorkers: Worker[] = [];
  const approvalWorkers: Worker[] = [];
  for (const shard of shards) {
    const shardLogger = shards.length === 1 ? logger : logger.child({ shard: shard.label });
    const runProcessor = createRunProcessor({
      store: new RunStore({ redis: connection, prefix: shard.prefix, logger: shardLogger }),
      redis: connection,
      prefix: shard.prefix,
      shardIndex: shard.index,
      registry,
      reader,
      catalog,
      caller: pool,
      models,
      approvalsQueue: approvalsQueueOf(shard),
      config,
      logger: shardLogger,
      secrets,
      env,
      workerId: id,
      embedding,
      enrichments,
      codeSandbox,
    });
    const runs = new Worker(QUEUE_NAMES.agentRuns, runProcessor, {
      connection,
      prefix: shard.prefix,
      concurrency: shardConcurrency,
      lockDuration: tuning.lockDurationMs,
      stalledInterval: tuning.stalledIntervalMs,
      maxStalledCount: tuning.maxStalledCount,
    });
    // A run that failed for good (invalid spec, attempts used up, stalled too often) never writes a
    // final checkpoint: give its checkpoint and journal the finished-run TTL so they do not stay
    // forever. A failed attempt that will be retried is left alone.
    runs.on('failed', (job) => {
      if (!job?.id || (job.finishedOn ?? 0) === 0) return;
      expireRunState({ redis: connection, keys: shard.keys, runId: job.id }).catch((error: Error) =>
        logger.warn({ runId: job.id, error: error.message }, 'could not expire the state of a failed run'),
      );
    });
    runWorkers.push(runs);
    approvalWorkers.push(
      new Worker(
        QUEUE_NAMES.approvals,
        approvalsQueueProcessor({ redis: connection, prefix: shard.prefix, logger: shardLogger }),
        // A worker killed while it settles an approval leaves the job stalled; past the limit the
        // job fails and its run counts it as denied, whatever the person decided. Settling is one
        // idempotent script, so an approval job may stall as often as a run.
        {
          connection,
          prefix: shard.prefix,
          concurrency: tuning.approvalConcurrency,
          maxStalledCount: tuning.maxStalledCount,
        },
      ),
    );
  }
  const decisions = new Worker(
    QUEUE_NAMES.decisions,
    createDecisionProcessor({ redis: connection, shards: router, approvalsQueueOf, logger }),
    { ...queueOptions, concurrency: tuning.approvalConcurrency },
  );
  for (const worker of [...runWorkers, ...approvalWorkers, decisions]) {
    worker.on('error', (error) => logger.error({ queue: worker.name, error: error.message }, 'worker error'));
    worker.on('failed', (job, error) =>
      logger.warn(
        { queue: worker.name, jobId: job?.id, attemptsMade: job?.attemptsMade, error: error.message },
        'job failed',
      ),
    );
  }

  let sweeping = false;
  const sweeper = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void (async () => {
      for (const shard of shards) {
        await sweepDecidedApprovals({
          redis: connection,
          prefix: shard.prefix,
          approvalsQueue: approvalsQueueOf(shard),
          logger,
          graceMs: tuning.sweepGraceMs,
        }).catch((error: Error) => logger.warn({ shard: shard.label, error: error.message }, 'approval sweep failed'));
        await sweepUnreadableElicitations({ redis: connection, prefix: shard.prefix, logger }).catch((error: Error) =>
          logger.warn({ shard: shard.label, error: error.message }, 'elicitation sweep failed'),
        );
      }
    })().finally(() => {
      sweeping = false;
    });
  }, tuning.sweepIntervalMs);
  sweeper.unref();

  await Promise.all([...runWorkers, ...approvalWorkers, decisions].map((worker) => worker.waitUntilReady()));
  logger.info(
    { concurrency: tuning.concurrency, prefix, shards: shards.map((shard) => shard.label), shardConcurrency },
    'agent worker started',
  );
  let closingDown = false;
  let health: HealthListener | undefined = undefined;
  let closing: Promise<void> | undefined;
  const step = async (name: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      logger.warn({ step: name, error: (error as Error).message }, 'close step failed');
    }
  };
  const close = (): Promise<void> => {
    closing ??= (async () => {
      closingDown = true;
      await step('close health listener', async () => health?.close());
      clearInterval(sweeper);
      await step('close runs workers', () =>
        Promise.all(runWorkers.map((worker) => closeWithin(worker, tuning.closeTimeoutMs))),
      );
      await step('close approvals workers', () => Promise.all(approvalWorkers.map((worker) => worker.close())));
      await step('close decisions worker', () => decisions.close());
      await step('close MCP pool', () => pool.close());
      await step('close code sandbox', async () => sandbox?.close());
      await step('close session subscription', async () => {
        await enrichmentFollower?.close();
        await sessionGenerations.close();
        await sessionSubscriber.quit();
      });
      await step('close queues', () =>
        Promise.all([...approvalsQueues.values(), refreshQueue].map((queue) => queue.close())),
      );
      await step('close redis', () => Promise.all([connection.quit(), readConnection.quit()]));
      logger.info('agent worker closed');
    })();
    return closing;
  };
  // The consumers already take jobs: a listener that cannot start closes them before the error
  // goes up, so that a caller of this function is not left with a worker it cannot stop.
  health = await startHealthListener({
    host: config.healthHost,
    port: config.workerHealthPort,
    role: 'agent-worker',
    variables: { host: 'AGENTQ_HEALTH_HOST', port: 'AGENTQ_WORKER_HEALTH_PORT' },
    logger,
    // Approvals, elicitations and decisions are what resume parked runs: a worker whose run
    // consumers run but whose approvals consumer stopped would leave them parked.
    ready: async () =>
      !closingDown &&
      [...runWorkers, ...approvalWorkers, decisions].every((worker) => worker.isRunning()) &&
      (await redisAnswers(connection)),
  }).catch(async (error: unknown) => {
    await close();
    throw error;
  });
  logger.info({ healthPort: health?.port }, 'agent worker ready');
  return { id, healthPort: health?.port, close };
}

/** The shards of `known` named in `AGENTQ_WORKER_SHARDS` (the single-shard layout counts as 0), or all. */
function selectShards(known: RunShard[], wanted: number[] | undefined): RunShard[] {
  if (!wanted) return known;
  return known.filter((shard) => wanted.includes(shard.index ?? 0));
}

async function closeWithin(worker: Worker, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = worker.close();
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    timer.unref();
  });
  const outcome = await Promise.race([graceful.then(() => 'closed' as const), timedOut]);
  clearTimeout(timer);
  // Still busy: release the runs. Their locks lapse and another worker resumes them from the
  // checkpoint of their last finished step.
  if (outcome === 'timeout') await worker.close(true);
}

/** The `approvals` queue carries the approvals and the elicitations runs park on, told by job name. */
function approvalsQueueProcessor(options: { redis: RedisConnection; prefix: string; logger: Logger }) {
  const approvals = createApprovalProcessor(options);
  const elicitations = createElicitationProcessor(options);
  // Through the one error mapping: a record that is missing, expired or unreadable fails the job
  // once with its code, instead of being retried with backoff.
  return async (job: Job, token?: string) =>
    withBullmqErrors({ job, token }, async (): Promise<unknown> =>
      job.name === 'elicitation' ? await elicitations(job) : await approvals(job),
    );
}
