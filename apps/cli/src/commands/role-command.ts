import { createLogger, loadConfig, secretValuesOf, startTelemetry } from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { waitForShutdown } from '../dev/wait-for-shutdown.js';
import { EXIT_CODES } from '../exit-codes.js';

/** One process role. */
export type Role = 'warmer' | 'worker' | 'api' | 'indexer';

/**
 * `agentq warmer|worker|api|indexer`: runs one role until SIGINT or SIGTERM, then closes it once. Scale a
 * role by starting more processes on the same Redis.
 */
export async function roleCommand(io: CliIo, role: Role, options: { until?: Promise<unknown> } = {}): Promise<number> {
  const config = loadConfig(io.env);
  const names = { warmer: 'catalog-warmer', worker: 'agent-worker', api: 'api', indexer: 'indexer' } as const;
  const logger = createLogger({ level: config.logLevel, name: names[role], secretValues: secretValuesOf(config) });
  // Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; started before the role so its spans are kept.
  const telemetry = await startTelemetry({ serviceName: `agentq-${role}`, logger, env: io.env });
  let close: () => Promise<void>;
  if (role === 'warmer') {
    const { startCatalogWarmer } = await import('@agentq/catalog-warmer');
    const warmer = await startCatalogWarmer({ config, logger, env: io.env });
    close = () => warmer.close();
    logger.info({ warmerId: warmer.id }, 'catalog warmer started');
  } else if (role === 'worker') {
    const { startAgentWorker } = await import('@agentq/agent-worker');
    const { openKnowledgeBaseReader } = await import('@agentq/kb');
    // kb_search / kb_list read knowledge bases through this reader (cache-only, loaded per version).
    const knowledgeBases = openKnowledgeBaseReader({ config, logger });
    const worker = await startAgentWorker({
      config,
      logger,
      env: io.env,
      knowledgeBaseReader: knowledgeBases.reader,
    });
    close = async () => {
      await worker.close();
      await knowledgeBases.close();
    };
    logger.info({ workerId: worker.id }, 'agent worker started');
  } else if (role === 'indexer') {
    const { startIndexer } = await import('@agentq/indexer');
    const indexer = await startIndexer({ config, logger });
    close = () => indexer.close();
  } else {
    const { startApi } = await import('@agentq/api');
    const api = await startApi({ config, logger });
    close = () => api.close();
    logger.info({ url: api.url }, 'api listening');
  }
  const signal = await (options.until ?? waitForShutdown());
  logger.info({ signal }, 'stopping');
  await close();
  await telemetry.shutdown();
  return EXIT_CODES.ok;
}
