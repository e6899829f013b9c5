import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { KnowledgeBaseStore } from '@agentq/kb';
import { createEmbedder } from '@agentq/models';
import { QUEUE_NAMES, type Config, type Logger } from '@agentq/shared';
import { createRedisConnection, createToolVectorStore, waitForRedis } from '@agentq/store';
import { Worker } from 'bullmq';
import { cleanUpFailedIngest, createIngestProcessor } from './ingest/create-ingest-processor.js';

/** Options of {@link startIndexer}. */
export interface StartIndexerOptions {
  config: Config;
  logger: Logger;
  /** Id of this indexer in logs and connection names. @default `<hostname>-<pid>-<random>` */
  indexerId?: string;
  /** Chunks per Redis write. @default 250 */
  batchSize?: number;
}

/** A running indexer. */
export interface Indexer {
  readonly id: string;
  /** Stops taking jobs, lets running ingests finish, closes connections. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts one indexer: the `kb-ingest` worker. Any number of indexers can run against one Redis.
 * An indexer that dies mid-ingest loses its job lock after `AGENTQ_INDEXER_LOCK_MS`; BullMQ's
 * stalled check then hands the job to a live indexer, which resumes from the progress marker.
 */
export async function startIndexer(options: StartIndexerOptions): Promise<Indexer> {
  const { config } = options;
  const id = options.indexerId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const prefix = config.keyPrefix;
  const logger = options.logger.child({ component: 'indexer', indexerId: id });
  const connect = (role: 'worker' | 'producer', purpose: string) => {
    const connection = createRedisConnection({
      url: config.redisUrl,
      role,
      cluster: config.cluster,
      name: `agentq-indexer-${purpose}-${id}`,
    });
    connection.on('error', (error: unknown) => logger.warn({ error, connection: purpose }, 'redis connection error'));
    return connection;
  };
  const redis = connect('producer', 'main');
  try {
    await waitForRedis(redis);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const workerConnection = connect('worker', 'worker');
  const store = new KnowledgeBaseStore({ redis, prefix });
  // Hybrid kb_search: with an embedding model, chunks are embedded at ingest (a missing key fails
  // start-up here, as it does in the worker that embeds the queries).
  const embedder = createEmbedder(config);
  const processor = createIngestProcessor({
    ...(embedder
      ? { embedding: { embedder, vectors: createToolVectorStore({ redis, prefix, modelId: embedder.modelId }) } }
      : {}),
    redis,
    store,
    logger,
    maxSourceBytes: config.kbMaxSourceBytes,
    ...(config.kbFileRoot ? { fileRoot: config.kbFileRoot } : {}),
    allowPrivateNetwork: config.allowPrivateFetch,
    ...(config.fetchAllowHosts ? { allowHosts: config.fetchAllowHosts } : {}),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
  });
  const worker = new Worker(QUEUE_NAMES.kbIngest, processor, {
    connection: workerConnection,
    prefix,
    concurrency: config.indexerConcurrency,
    lockDuration: config.indexerLockMs,
    stalledInterval: Math.max(500, Math.floor(config.indexerLockMs / 2)),
    maxStalledCount: 5,
  });
  worker.on('error', (error) => logger.warn({ error }, 'ingest worker error'));
  worker.on('failed', (job, error) => {
    if (!job) return;
    logger.warn({ jobId: job.id, attemptsMade: job.attemptsMade, error: error.message }, 'ingest failed');
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || error.name === 'UnrecoverableError';
    if (final) void cleanUpFailedIngest({ job, store, logger });
  });
  await worker.waitUntilReady();
  logger.info({ concurrency: config.indexerConcurrency, lockMs: config.indexerLockMs, prefix }, 'indexer started');

  let closing: Promise<void> | undefined;
  const close = async () => {
    const step = async (name: string, run: () => Promise<unknown>) => {
      try {
        await run();
      } catch (error) {
        logger.warn({ error, step: name }, 'shutdown step failed');
      }
    };
    await step('worker', () => worker.close());
    await step('redis', () => redis.quit());
    await step('redis', () => workerConnection.quit());
    logger.info('indexer stopped');
  };
  return {
    id,
    close() {
      closing ??= close();
      return closing;
    },
  };
}
