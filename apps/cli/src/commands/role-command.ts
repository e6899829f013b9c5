import { runRole, type RoleDefinition } from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';

/** One process role. */
export type Role = 'warmer' | 'worker' | 'api' | 'indexer';

// Each role loads only when asked for, so `agentq api` never loads the worker's model providers.
const roles: Record<Role, () => Promise<RoleDefinition>> = {
  warmer: async () => (await import('@agentq/catalog-warmer')).catalogWarmerRole,
  worker: async () => (await import('@agentq/agent-worker')).agentWorkerRole,
  api: async () => (await import('@agentq/api')).apiRole,
  indexer: async () => (await import('@agentq/indexer')).indexerRole,
};

/**
 * `agentq warmer|worker|api|indexer`: runs one role until SIGINT or SIGTERM, then closes it once. Scale a
 * role by starting more processes on the same Redis.
 */
export async function roleCommand(io: CliIo, role: Role, options: { until?: Promise<unknown> } = {}): Promise<number> {
  await runRole(await roles[role](), { env: io.env, ...(options.until ? { until: options.until } : {}) });
  return EXIT_CODES.ok;
}
