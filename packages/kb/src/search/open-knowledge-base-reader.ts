import { createRedisConnection, type Config, type Logger } from '@agentq/shared';
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
 * search during a Redis outage errors at once and the tool reports it to the model.
 */
export function openKnowledgeBaseReader(options: { config: Config; logger: Logger }): OpenedKnowledgeBaseReader {
  const { config } = options;
  const redis = createRedisConnection({
    url: config.redisUrl,
    role: 'producer',
    cluster: config.cluster,
    name: 'agentq-kb-reader',
  });
  redis.on('error', (error: Error) => options.logger.debug({ error: error.message }, 'kb reader redis error'));
  let closing: Promise<void> | undefined;
  return {
    reader: createKnowledgeBaseReader({ redis, keyPrefix: config.keyPrefix, logger: options.logger }),
    close() {
      closing ??= redis.quit().then(
        () => undefined,
        () => redis.disconnect(),
      );
      return closing;
    },
  };
}
