import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { loadConfig, runSpecLimitsOf, serverPolicyOf, waitForRedis, type Config } from '@agentq/shared';
import type { CliIo } from './cli-io.js';

/**
 * Runs `action` with a client on the configured Redis (`REDIS_URL`, `AGENTQ_PREFIX`), and closes it
 * afterwards whatever happens. The CLI talks to Redis directly, like any other producer.
 */
export async function withClient<T>(
  io: CliIo,
  action: (client: AgentqClient, config: Config) => Promise<T>,
): Promise<T> {
  const config = loadConfig(io.env);
  const client = createAgentqClient({
    redisUrl: config.redisUrl,
    prefix: config.prefix,
    cluster: config.cluster,
    clusterNodes: config.clusterNodes,
    runShards: config.runShards,
    runAttempts: config.runAttempts,
    serverPolicy: serverPolicyOf(config),
    runSpecLimits: runSpecLimitsOf(config),
    ...(config.kbFileRoot ? { kbFileRoot: config.kbFileRoot } : {}),
  });
  try {
    await waitForRedis(client.redis, 3_000);
    return await action(client, config);
  } finally {
    await client.close();
  }
}
