import { runRoleProcess } from '@agentq/shared';
import { apiRole } from './api-role.js';

// Role entry: `tsx apps/api/src/main.ts` (or `agentq api`). Configuration comes from the
// environment; see docs/configuration.md.
await runRoleProcess(apiRole);
