import { openKnowledgeBaseReader } from '@agentq/kb';
import { createLogger, loadConfig, secretValuesOf, startTelemetry } from '@agentq/shared';
import { startAgentWorker } from './start-agent-worker.js';

// Role entry point: `tsx apps/agent-worker/src/main.ts` (or `agentq worker`). Configuration comes
// from the environment; SIGTERM and SIGINT close the worker once, letting active runs finish or
// releasing them to resume elsewhere.
const config = loadConfig(process.env);
const logger = createLogger({ level: config.logLevel, name: 'agent-worker', secretValues: secretValuesOf(config) });
// Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
const telemetry = await startTelemetry({ serviceName: 'agentq-worker', logger });

try {
  // kb_search / kb_list read knowledge bases through this reader (cache-only, loaded per version).
  const knowledgeBases = openKnowledgeBaseReader({ config, logger });
  const worker = await startAgentWorker({ config, logger, knowledgeBaseReader: knowledgeBases.reader });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'closing agent worker');
    worker
      .close()
      .then(() => knowledgeBases.close())
      .then(
        async () => {
          await telemetry.shutdown();
          process.exit(0);
        },
        (error: Error) => {
          logger.error({ error: error.message }, 'agent worker did not close cleanly');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (error) {
  logger.error({ error: (error as Error).message }, 'agent worker failed to start');
  process.exit(1);
}
