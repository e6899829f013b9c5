import { createLogger, loadConfig, secretValuesOf, startTelemetry } from '@agentq/shared';
import { startApi } from './start-api.js';

// Role entry: `tsx apps/api/src/main.ts` (or `agentq api`). Configuration comes from the
// environment; see docs/configuration.md.
const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'api', secretValues: secretValuesOf(config) });
// Tracing is off unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
const telemetry = await startTelemetry({ serviceName: 'agentq-api', logger });
const api = await startApi({ config, logger });
logger.info({ url: api.url }, 'api listening');

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  api.close().then(
    async () => {
      await telemetry.shutdown();
      process.exit(0);
    },
    (error: unknown) => {
      logger.error({ error }, 'close failed');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));
