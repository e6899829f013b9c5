import type { RoleDefinition } from '@agentq/shared';
import { startIndexer } from './start-indexer.js';

/** The indexer as a process role (`agentq indexer`, `apps/indexer/src/main.ts`). */
export const indexerRole: RoleDefinition = {
  name: 'indexer',
  serviceName: 'agentq-indexer',
  start: ({ config, logger }) => startIndexer({ config, logger }),
};
