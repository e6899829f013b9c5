import { createLogger, loadConfig, secretValuesOf } from '@agentq/shared';
import { startIndexer } from './start-indexer.js';

// One indexer process: `agentq indexer`, or `tsx apps/indexer/src/main.ts`.
const config = loadConfig();
const logger = createLogger({ level: config.logLevel, name: 'indexer', secretValues: secretValuesOf(config) });
const indexer = await startIndexer({ config, logger });

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  indexer.close().then(
    () => process.exit(0),
    (error: unknown) => {
      logger.error({ error }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
