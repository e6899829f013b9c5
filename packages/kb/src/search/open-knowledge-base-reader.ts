import { createQueryEmbedder, type Config, type Embedder, type Logger } from '@agentq/shared';
import { createRedisConnection, createToolVectorStore } from '@agentq/store';
import { createKnowledgeBaseReader, type LoadedKnowledgeBaseReader } from './create-knowledge-base-reader.js';

/** A reader with the Redis connection it owns. */
export interface OpenedKnowledgeBaseReader {
  reader: LoadedKnowledgeBaseReader;
  /** Closes the reader's connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens a knowledge base reader on its own producer connection, for a process role (the worker)
 * that hands it to `kb_search` / `kb_list`. The connection fails fast instead of queueing, so a
 * search during a Redis outage errors at once and the tool reports it to the model. A second
 * connection subscribes to `kb.updated`, so new versions load in the background, never on a run's
 * path; `close` ends both.
 */
export function openKnowledgeBaseReader(options: {
  config: Config;
  logger: Logger;
  /** The embedding model the indexer embeds chunks with; `kb_search` is hybrid with one. @default none */
  embedder?: Embedder | null;
}): OpenedKnowledgeBaseReader {
  const { config } = options;
  const redis = createRedisConnection({
    url: config.redisUrl,
    role: 'producer',
    cluster: config.cluster,
    nodes: config.clusterNodes,
    name: 'agentq-kb-reader',
  });
  // Queues commands while disconnected, so the subscription waits for Redis instead of failing.
  const subscriber = createRedisConnection({
    url: config.redisUrl,
    role: 'worker',
    cluster: config.cluster,
    nodes: config.clusterNodes,
    name: 'agentq-kb-reader-updates',
  });
  for (const connection of [redis, subscriber]) {
    connection.on('error', (error: Error) => options.logger.debug({ error: error.message }, 'kb reader redis error'));
  }
  const { embedder } = options;
  const reader = createKnowledgeBaseReader({
    redis,
    subscriber,
    keyPrefix: config.keyPrefix,
    logger: options.logger,
    ...(embedder
      ? {
          embedding: {
            vectors: createToolVectorStore({ redis, prefix: config.keyPrefix, modelId: embedder.modelId }),
            embedQuery: createQueryEmbedder(embedder),
          },
        }
      : {}),
  });
  let closing: Promise<void> | undefined;
  const quit = (connection: typeof redis) =>
    connection.quit().then(
      () => undefined,
      () => connection.disconnect(),
    );
  return {
    reader,
    close() {
      closing ??= reader.close().then(() => Promise.all([quit(subscriber), quit(redis)]).then(() => undefined));
      return closing;
    },
  };
}
