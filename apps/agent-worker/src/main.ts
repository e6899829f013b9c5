import { runRoleProcess } from '@agentq/shared';
import { agentWorkerRole } from './agent-worker-role.js';

// Role entry point: `tsx apps/agent-worker/src/main.ts` (or `agentq worker`). Configuration comes
// from the environment; SIGTERM and SIGINT close the worker once, letting active runs finish or
// releasing them to resume elsewhere.
await runRoleProcess(agentWorkerRole);
