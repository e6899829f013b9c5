import { createAgentqClient, type AgentqClient } from '@agentq/client';
import {
  loadConfig,
  runSpecLimitsOf,
  serverPolicyOf,
  silentLogger,
  startTelemetry,
  type Config,
  type Logger,
} from '@agentq/shared';
import { waitForRedis } from '@agentq/store';
import type { CliIo } from './cli-io.js';

/**
 * Runs `action` with a client on the configured Redis (`REDIS_URL`, `AGENTQ_PREFIX`), and closes it
 * afterwards whatever happens. The CLI talks to Redis directly, like any other producer; like the
 * other roles, it traces when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, so that a run it enqueues (or a
 * decision it records) opens or joins the run's trace, and its spans are flushed before it exits.
 */
export async function withClient<T>(
  io: CliIo,
  action: (client: AgentqClient, config: Config) => Promise<T>,
): Promise<T> {
  const config = loadConfig(io.env);
  const telemetry = await startTelemetry({ serviceName: 'agentq-cli', logger: warningsTo(io), env: io.env });
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
    await telemetry.shutdown();
  }
}

/** A logger that prints warnings and errors to the terminal's error stream, and drops the rest. */
function warningsTo(io: CliIo): Logger {
  const quiet = silentLogger();
  const print =
    (level: string) =>
    (first: unknown, message?: string): void => {
      const text = typeof first === 'string' ? first : (message ?? '');
      const error = typeof first === 'object' && first !== null ? (first as { error?: unknown }).error : undefined;
      io.err(`agentq ${level}: ${text}${error === undefined ? '' : `: ${String(error)}`}`);
    };
  const logger: Logger = {
    trace: quiet.trace.bind(quiet),
    debug: quiet.debug.bind(quiet),
    info: quiet.info.bind(quiet),
    warn: print('warning'),
    error: print('error'),
    child: () => logger,
  };
  return logger;
}
