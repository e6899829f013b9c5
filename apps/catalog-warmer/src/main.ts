import { createLogger, loadConfig, secretValuesOf } from '@agentq/shared';
import { startCatalogWarmer } from './start-catalog-warmer.js';

// One catalog-warmer process: `agentq warmer`, or `tsx apps/catalog-warmer/src/main.ts`.
const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'catalog-warmer', secretValues: secretValuesOf(config) });
const warmer = await startCatalogWarmer({ config, logger });

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  warmer.close().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ error }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
