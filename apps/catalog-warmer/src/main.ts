import { runRoleProcess } from '@agentq/shared';
import { catalogWarmerRole } from './catalog-warmer-role.js';

// One catalog-warmer process: `agentq warmer`, or `tsx apps/catalog-warmer/src/main.ts`.
await runRoleProcess(catalogWarmerRole);
