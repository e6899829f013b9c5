import { runRoleProcess } from '@agentq/shared';
import { indexerRole } from './indexer-role.js';

// One indexer process: `agentq indexer`, or `tsx apps/indexer/src/main.ts`.
await runRoleProcess(indexerRole);
