import { createLogger, loadConfig, secretValuesOf, startTelemetry } from '@agentq/shared';
import { startCatalogWarmer } from './start-catalog-warmer.js';

// One catalog-warmer process: `agentq warmer`, or `tsx apps/catalog-warmer/src/main.ts`.
const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'catalog-warmer', secretValues: secretValuesOf(config) });
// Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
const telemetry = await startTelemetry({ serviceName: 'agentq-warmer', logger });
const warmer = await startCatalogWarmer({ config, logger });

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  warmer.close().then(
    async () => {
      await telemetry.shutdown();
      process.exit(0);
    },
    (error: unknown) => {
      logger.error({ error }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
