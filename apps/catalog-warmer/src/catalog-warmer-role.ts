import type { RoleDefinition } from '@agentq/shared';
import { startCatalogWarmer } from './start-catalog-warmer.js';

/** The catalog warmer as a process role (`agentq warmer`, `apps/catalog-warmer/src/main.ts`). */
export const catalogWarmerRole: RoleDefinition = {
  name: 'catalog-warmer',
  serviceName: 'agentq-warmer',
  start: ({ config, logger, env }) => startCatalogWarmer({ config, logger, env }),
};
