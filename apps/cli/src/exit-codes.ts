import { AgentqError, errorCodeInfo, EXIT_CODES, parseRedisUrl } from '@agentq/shared';

/**
 * Exit codes of `agentq`, stable for scripts (docs/errors.md lists the code of each error):
 * - 0 success;
 * - 1 the thing ran and failed (a run failed, an unexpected error);
 * - 2 usage or invalid input (bad option, bad spec, bad config);
 * - 3 not found;
 * - 4 conflict (already decided, already exists, wrong state);
 * - 5 Redis or the API is unreachable;
 * - 6 timed out waiting.
 */
export { EXIT_CODES };

/** Where the CLI reaches Redis: `REDIS_URL` and `AGENTQ_REDIS_CLUSTER_NODES` as set (unset: the default Redis). */
export interface RedisTarget {
  redisUrl?: string;
  clusterNodes?: string;
}

/** The exit code for an error: the one `ERROR_CODES` gives its code, else 5 for Redis down, else 1. */
export function exitCodeFor(error: unknown, redis: RedisTarget = {}): number {
  if (AgentqError.isInstance(error)) return errorCodeInfo(error.code)?.exitCode ?? EXIT_CODES.failed;
  if (isRedisDown(error, redis)) return EXIT_CODES.unavailable;
  return EXIT_CODES.failed;
}

/**
 * Whether an error means Redis cannot be reached: a coded `UNAVAILABLE` (agentq's own waits throw
 * it), one of ioredis's own connection failures, or a failed connect or name lookup of the Redis
 * in `redis` (its port, its host name). A network failure of anything else (a mistyped listen
 * host, an MCP server, the API) is not Redis being down.
 */
export function isRedisDown(error: unknown, redis: RedisTarget = {}): boolean {
  if (AgentqError.isInstance(error)) return error.code === 'UNAVAILABLE' || error.code === 'REDIS_UNAVAILABLE';
  const message = error instanceof Error ? error.message : String(error);
  if (/Connection is closed|enableOfflineQueue|MaxRetriesPerRequest|max retries per request/i.test(message))
    return true;
  const failure = networkFailure(error, message);
  if (!failure) return false;
  const endpoints = redisEndpoints(redis);
  if (failure.syscall === 'connect') return endpoints.some((endpoint) => endpoint.port === failure.port);
  return endpoints.some((endpoint) => endpoint.host === failure.host);
}

/** A failed outgoing connect (with the port it tried) or name lookup (with the name), from the error or its message. */
function networkFailure(
  error: unknown,
  message: string,
): { syscall: 'connect'; port: number } | { syscall: 'getaddrinfo'; host: string } | undefined {
  const fields = (error ?? {}) as { syscall?: unknown; port?: unknown; hostname?: unknown };
  if (fields.syscall === 'connect' && typeof fields.port === 'number') return { syscall: 'connect', port: fields.port };
  if (fields.syscall === 'getaddrinfo' && typeof fields.hostname === 'string') {
    return { syscall: 'getaddrinfo', host: fields.hostname.toLowerCase() };
  }
  const connect = /\bconnect (?:ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT) \S*:(\d+)/.exec(message);
  if (connect) return { syscall: 'connect', port: Number(connect[1]) };
  const lookup = /\bgetaddrinfo (?:ENOTFOUND|EAI_AGAIN) (\S+)/.exec(message);
  if (lookup) return { syscall: 'getaddrinfo', host: (lookup[1] as string).toLowerCase() };
  return undefined;
}

/**
 * The host names and ports of the Redis the CLI connects to: the seed nodes, and every
 * `host[:port]` of `REDIS_URL` (a `redis+cluster://` URL lists several).
 */
function redisEndpoints(redis: RedisTarget): Array<{ host: string; port: number }> {
  // The nodes as the connection finds them (credentials split at the authority's last `@`).
  let nodes: Array<{ host: string; port: number }> = [];
  try {
    nodes = parseRedisUrl(redis.redisUrl || 'redis://127.0.0.1:6379').nodes;
  } catch {
    // An unparseable URL names no endpoint.
  }
  const endpoints = nodes.map((node) => ({ host: node.host.replace(/^\[|\]$/g, '').toLowerCase(), port: node.port }));
  for (const entry of (redis.clusterNodes ?? '').split(',')) {
    const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d+))?$/.exec(entry.trim());
    const host = match?.[1] ?? match?.[2];
    if (host) endpoints.push({ host: host.toLowerCase(), port: Number(match?.[3] ?? 6379) });
  }
  return endpoints;
}
