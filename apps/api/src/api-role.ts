import type { RoleDefinition } from '@agentq/shared';
import { startApi } from './start-api.js';

/** The REST API as a process role (`agentq api`, `apps/api/src/main.ts`). */
export const apiRole: RoleDefinition = {
  name: 'api',
  serviceName: 'agentq-api',
  async start({ config, logger }) {
    const api = await startApi({ config, logger });
    logger.info({ url: api.url }, 'api listening');
    return api;
  },
};
