import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  QUEUE_NAMES,
  startHealthListener,
  type HealthListener,
  isAuthCatalogState,
  keyPrefix,
  type Config,
  type Logger,
  type RefreshReason,
  type SecretRegistry,
} from '@agentq/shared';
import {
  CatalogStore,
  parseRefreshDelegation,
  pruneDeadWarmers,
  redisAnswers,
  RefreshDelegation,
  ServerSessions,
  ServerStore,
  createRedisConnection,
  keyNames,
  parseServerChangeEvent,
  publishToolsEnriched,
  requestRefresh,
  subscribeToChannels,
  waitForRedis,
  writeWarmerRecord,
  type RedisConnection,
  type WarmerRecord,
} from '@agentq/store';
import { OAuthTokenStore } from '@agentq/store';
import {
  createCatalogToolEmbedding,
  createCatalogToolEnrichment,
  createToolEnrichmentStore,
  createToolVectorStore,
} from '@agentq/registry';
import { createEmbedder, createSearchEnricher } from '@agentq/models';
import { Queue, Worker } from 'bullmq';
import { createBudgetedEnricher } from './cache/budgeted-enricher.js';
import { catalogBudgetOf, listMessageLimit } from './cache/catalog-budget.js';
import { CatalogWriter } from './cache/catalog-writer.js';
import { createRefreshProcessor } from './refresh/create-refresh-processor.js';
import { RefreshSchedules } from './schedule/refresh-schedules.js';
import { reactToServerChange } from './servers/react-to-server-change.js';
import { resolveWarmerTimings } from './warmer-timings.js';
import { WatchCoordinator } from './watch/watch-coordinator.js';

/** Options of {@link startCatalogWarmer}. */
export interface StartCatalogWarmerOptions {
  config: Config;
  /** Root logger; when it has a `secrets` registry (from `createLogger`), resolved secrets are added. */
  logger: Logger;
  /** Id of this warmer in leases and health records. @default `<hostname>-<pid>-<random>` */
  warmerId?: string;
  /** Environment for `${ENV}` secrets in server definitions. @default process.env */
  env?: Record<string, string | undefined>;
}

/** A running warmer. */
export interface CatalogWarmer {
  readonly id: string;
  /**
   * Stops taking jobs, lets running refreshes finish, releases watcher leases, closes MCP clients
   * (ending stdio children) and Redis connections. Idempotent; every step runs even if one fails.
   */
  close(): Promise<void>;
  /** Port of the health listener (`AGENTQ_WARMER_HEALTH_PORT`), when one runs. */
  readonly healthPort: number | undefined;
}

const PREWARM_PARALLELISM = 16;

/**
 * Starts one catalog warmer: the `catalog-refresh` worker (`config.warmerConcurrency` refreshes
 * at once), the `list_changed` watchers it owns, its reaction to server changes, and its
 * heartbeat. On start it prewarms every enabled server and clears what disabled servers left.
 * Any number of warmers can run against one Redis; they share the work through the queue and the
 * watcher leases.
 */
export async function startCatalogWarmer(options: StartCatalogWarmerOptions): Promise<CatalogWarmer> {
  const { config } = options;
  const id = options.warmerId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const env = options.env ?? process.env;
  const timings = resolveWarmerTimings({ watchLeaseMs: config.watchLeaseMs });
  const prefix = keyPrefix(config);
  const keys = keyNames(prefix);
  // `role` names the process role; `component` is left to the parts below, so no line carries it twice.
  const logger = options.logger.child({ role: 'catalog-warmer', warmerId: id });
  const secrets = (options.logger as Partial<{ secrets: SecretRegistry }>).secrets;
  const registerSecrets = (values: readonly string[]) => secrets?.add(values);
  const startedAt = Date.now();

  const connect = (role: 'worker' | 'producer', purpose: string) => {
    const connection = createRedisConnection({
      url: config.redisUrl,
      role,
      cluster: config.cluster,
      nodes: config.clusterNodes,
      name: `agentq-warmer-${purpose}-${id}`,
    });
    connection.on('error', (error: unknown) => logger.warn({ error, connection: purpose }, 'redis connection error'));
    return connection;
  };
  const redis = connect('producer', 'main');
  const connections: RedisConnection[] = [redis];
  try {
    await waitForRedis(redis);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const workerConnection = connect('worker', 'worker');
  const subscriber = connect('worker', 'events');
  connections.push(workerConnection, subscriber);

  const queue = new Queue(QUEUE_NAMES.catalogRefresh, { connection: redis, prefix });
  queue.on('error', (error) => logger.warn({ error }, 'refresh queue error'));
  const enqueue = async (request: { serverId: string; reason: RefreshReason; requestedAt?: number }) => {
    await requestRefresh(queue, request);
  };
  const store = new ServerStore({ redis, prefix, logger });
  const oauth = config.secretKey
    ? { store: new OAuthTokenStore({ redis, keys, secretKey: config.secretKey }) }
    : undefined;
  // Hybrid search: with an embedding model, each list's new tool texts are embedded before it is
  // written. A missing key for the configured model fails start-up here.
  const embedder = createEmbedder(config);
  // Description enrichment (off by default): new tools get example requests after their list is
  // written, in the background. A missing key for the configured model fails start-up here.
  const enricher = createSearchEnricher(config);
  const enrichment = enricher
    ? createCatalogToolEnrichment({
        enricher,
        store: createToolEnrichmentStore({ redis, prefix, modelId: enricher.modelId, logger }),
        logger,
        maxToolsPerList: config.searchEnrichMaxTools,
        enricherFor: createBudgetedEnricher({
          enricher,
          redis,
          prefix,
          maxPerServerHour: config.searchEnrichMaxPerServerHour,
          logger,
        }),
        // Workers index the new examples at once instead of at the server's next catalog version.
        onEnriched: (serverId) => publishToolsEnriched(redis, prefix, serverId),
      })
    : undefined;
  const writer = new CatalogWriter({
    redis,
    prefix,
    logger,
    embedTools: embedder
      ? createCatalogToolEmbedding({
          embedder,
          store: createToolVectorStore({ redis, prefix, modelId: embedder.modelId }),
          logger,
        })
      : undefined,
    enrichTools: enrichment ? (serverId, tools) => enrichment.enrichTools(serverId, tools) : undefined,
  });
  const schedules = new RefreshSchedules({ queue });
  const catalog = new CatalogStore({ redis, prefix, logger });
  const delegation = new RefreshDelegation({ redis, prefix, warmerId: id });
  // Set once the processor exists: the watchers start only after it.
  let refreshAsOwner: (request: { serverId: string; reason: RefreshReason; requestedAt: number }) => void = () => {};
  // A `list_changed` on this warmer's session: read over that session now, and enqueue the job
  // too. The job is the durable fallback (this warmer may die before it reads); when the read
  // here answers it, it is skipped as `covered`, so it only de-duplicates.
  const listChanged = async (request: { serverId: string; reason: RefreshReason; requestedAt?: number }) => {
    const requestedAt = request.requestedAt ?? Date.now();
    refreshAsOwner({ serverId: request.serverId, reason: request.reason, requestedAt });
    await enqueue({ ...request, requestedAt });
  };
  const watchers = new WatchCoordinator({
    redis,
    prefix,
    warmerId: id,
    store: new ServerStore({ redis, prefix }),
    schedules,
    leaseTtlMs: timings.leaseTtlMs,
    livenessMs: timings.livenessMs,
    logger,
    env,
    registerSecrets,
    allowPrivateNetwork: config.allowPrivateFetch,
    allowHosts: config.fetchAllowHosts,
    errorBodyMaxBytes: config.errorBodyMaxBytes,
    messageLimit: listMessageLimit(catalogBudgetOf(config)),
    oauth,
    connectConcurrency: Math.max(1, Math.ceil(config.warmerConcurrency / 2)),
    capabilities: catalog,
    requestRefresh: listChanged,
    sessions: new ServerSessions({ redis, prefix }),
    authStillRequired: async (server) => {
      const { status } = await catalog.read(server.serverId);
      return (
        status?.success === true &&
        status.data.definitionHash === server.definitionHash &&
        isAuthCatalogState(status.data.state)
      );
    },
    recordConnectFailure: async (failure) => {
      const result = await writer.recordWatcherFailure(failure);
      if (result.written) {
        logger.warn(
          { serverId: failure.serverId, error: failure.error, state: result.state },
          'watcher could not connect; status recorded',
        );
      }
    },
  });
  const processor = createRefreshProcessor({
    redis,
    prefix,
    writer,
    servers: store,
    catalog,
    lockTtlMs: timings.refreshLockTtlMs,
    logger,
    warmerId: id,
    env,
    registerSecrets,
    allowPrivateNetwork: config.allowPrivateFetch,
    allowHosts: config.fetchAllowHosts,
    errorBodyMaxBytes: config.errorBodyMaxBytes,
    oauth,
    budget: catalogBudgetOf(config),
    watchedConnection: (serverId, hash) => watchers.connectionFor(serverId, hash),
    renewSession: (serverId, hash) => watchers.renewSession(serverId, hash),
    delegateToOwner: (request) => delegation.toOwner(request),
    scheduleRefresh: (request) => schedules.scheduleAfterTtl(request),
    stopping: () => state !== 'running',
  });
  refreshAsOwner = (request) => {
    processor.refreshAsOwner(request).catch((error: unknown) => {
      // Recorded in the status already (a failed read) or a Redis problem; the queued job remains.
      logger.warn({ serverId: request.serverId, error }, 'owner refresh failed');
    });
  };

  let state: WarmerRecord['state'] = 'running';
  const beat = async () => {
    const snapshot = watchers.snapshot();
    await writeWarmerRecord({
      redis,
      prefix,
      ttlMs: timings.recordTtlMs,
      record: {
        id,
        pid: process.pid,
        hostname: hostname(),
        startedAt,
        heartbeatAt: Date.now(),
        state,
        ownedServers: snapshot.owned,
        watchingServers: snapshot.watching,
        pollingServers: snapshot.polling,
        activeRefreshes: processor.active(),
        concurrency: config.warmerConcurrency,
      },
    });
  };
  let ticks = 0;
  const tick = async () => {
    try {
      await beat();
      await watchers.tick();
      ticks += 1;
      if (ticks % 20 === 0) await pruneDeadWarmers({ redis, prefix, olderThanMs: timings.forgetAfterMs });
    } catch (error) {
      logger.warn({ error }, 'warmer tick failed');
    }
  };

  // Server changes are handled one at a time, in the order they were published.
  let changes: Promise<void> = Promise.resolve();
  const onDelegated = (message: string) => {
    if (state !== 'running') return;
    const request = parseRefreshDelegation(message, logger);
    if (request) refreshAsOwner(request);
  };
  const onServerChanged = (message: string) => {
    if (state !== 'running') return;
    const event = parseServerChangeEvent(message, logger);
    if (!event) return;
    changes = changes.then(() =>
      reactToServerChange(event, {
        store,
        writer,
        requestRefresh: enqueue,
        removeSchedule: async (serverId) => {
          await schedules.remove(serverId);
          if (event.type === 'remove') await catalog.forgetCapability(serverId);
        },
        watchers,
        logger,
      }),
    );
  };
  const subscription = await subscribeToChannels(subscriber, {
    [keys.serversChanged]: onServerChanged,
    [delegation.channel]: onDelegated,
  });

  await beat();
  const worker = new Worker(QUEUE_NAMES.catalogRefresh, (job, token, signal) => processor.process(job, token, signal), {
    connection: workerConnection,
    prefix,
    concurrency: config.warmerConcurrency,
  });
  worker.on('error', (error) => logger.warn({ error }, 'refresh worker error'));

  await prewarm({ store, catalog, enqueue, logger });
  await tick();
  const ticker = setInterval(() => void tick(), timings.tickMs);
  logger.info(
    { concurrency: config.warmerConcurrency, leaseMs: config.watchLeaseMs, prefix },
    'catalog warmer started',
  );
  let health: HealthListener | undefined = undefined;
  let closing: Promise<void> | undefined;
  const close = async () => {
    const step = async (name: string, run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        logger.warn({ error, step: name }, 'shutdown step failed');
      }
    };
    state = 'stopping';
    await step('health listener', async () => health?.close());
    clearInterval(ticker);
    watchers.beginClose();
    // Unsubscribing first makes other warmers read for themselves (nobody receives a delegation).
    await step('unsubscribe', () => subscription.close());
    await step('heartbeat', beat);
    // Waits for running refreshes: each is bounded by its server's connect and list timeouts.
    await step('worker', () => worker.close());
    await step('owner refreshes', () => processor.closeOwnerRefreshes());
    await step('server changes', () => changes);
    await step('watchers', () => watchers.close());
    await step('mcp connections', () => processor.drain());
    await step('enrichment', async () => enrichment?.close());
    state = 'stopped';
    await step('health record', beat);
    await step('queue', () => queue.close());
    for (const connection of connections) await step('redis', () => connection.quit());
    logger.info('catalog warmer stopped');
  };
  // The refresh worker already takes jobs: a listener that cannot start closes everything before
  // the error goes up, so that a caller of this function is not left with a warmer it cannot stop.
  health = await startHealthListener({
    host: config.healthHost,
    port: config.warmerHealthPort,
    role: 'catalog-warmer',
    variables: { host: 'AGENTQ_HEALTH_HOST', port: 'AGENTQ_WARMER_HEALTH_PORT' },
    logger,
    ready: async () => state === 'running' && worker.isRunning() && (await redisAnswers(redis)),
  }).catch(async (error: unknown) => {
    closing ??= close();
    await closing;
    throw error;
  });
  logger.info({ healthPort: health?.port }, 'catalog warmer ready');

  return {
    id,
    healthPort: health?.port,
    close() {
      closing ??= close();
      return closing;
    },
  };
}

async function prewarm(input: {
  store: ServerStore;
  catalog: CatalogStore;
  enqueue: (request: { serverId: string; reason: RefreshReason }) => Promise<void>;
  logger: Logger;
}): Promise<void> {
  const { servers, corrupt } = await input.store.listWithErrors();
  for (const entry of corrupt) {
    input.logger.error(
      { serverId: entry.serverId, code: entry.error.code, error: entry.error.message },
      'malformed server definition skipped',
    );
  }
  const requests: Array<{ serverId: string; reason: RefreshReason }> = [];
  for (const definition of servers) {
    if (definition.enabled) {
      requests.push({ serverId: definition.id, reason: 'prewarm' });
    } else if (await input.catalog.hasEntry(definition.id)) {
      // Disabled while no warmer was running: clear what it left.
      requests.push({ serverId: definition.id, reason: 'disable' });
    }
  }
  for (let index = 0; index < requests.length; index += PREWARM_PARALLELISM) {
    await Promise.all(requests.slice(index, index + PREWARM_PARALLELISM).map((request) => input.enqueue(request)));
  }
  input.logger.info({ servers: requests.length, corrupt: corrupt.length }, 'prewarm requested');
}
