import { AgentqError, parseRedisUrl } from '@agentq/shared';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

export { parseRedisUrl };

/** A connection to Redis, single node or cluster. */
export type RedisConnection = Redis | Cluster;

/** Whether a connection is a Redis Cluster client. */
export function isClusterConnection(connection: RedisConnection): connection is Cluster {
  return (connection as { isCluster?: boolean }).isCluster === true;
}

/** Options of {@link createRedisConnection}. */
export interface CreateRedisConnectionOptions {
  url: string;
  /**
   * `worker`: blocking BullMQ connections, which must retry forever (`maxRetriesPerRequest: null`).
   * `producer`: request/response use, which must fail fast when Redis is down instead of queueing
   * commands in memory.
   */
  role: 'worker' | 'producer';
  /**
   * Connect to a Redis Cluster. Implied by `nodes` and by a `redis+cluster://h1:p1,h2:p2` URL.
   * @default false
   */
  cluster?: boolean;
  /** Seed nodes of the cluster (`AGENTQ_REDIS_CLUSTER_NODES`); credentials and TLS still come from `url`. */
  nodes?: ReadonlyArray<{ host: string; port: number }>;
  /** Connection name shown by `CLIENT LIST`. */
  name?: string;
}

/** Creates an ioredis connection with the settings BullMQ needs for the given role. */
export function createRedisConnection(options: CreateRedisConnectionOptions): RedisConnection {
  const target = parseRedisUrl(options.url);
  const parsed = target.url;
  const base: RedisOptions =
    options.role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: false }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 };
  const tls = parsed.protocol === 'rediss:' ? {} : undefined;
  const common: RedisOptions = {
    ...base,
    connectionName: options.name,
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    tls,
  };
  if (options.cluster || target.nodes.length > 1 || target.cluster || options.nodes?.length) {
    const nodes = options.nodes?.length ? [...options.nodes] : target.nodes;
    return new Cluster(nodes, {
      redisOptions: common,
      enableOfflineQueue: options.role === 'worker',
    });
  }
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  return new Redis({
    ...common,
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    db: Number.isFinite(db) ? db : 0,
    // A producer connects eagerly so that the first command does not race the offline queue.
    lazyConnect: false,
  });
}

/**
 * Waits until a producer connection is ready, failing with an `UNAVAILABLE` error after
 * `timeoutMs` or when the connection ends first.
 */
export async function waitForRedis(connection: RedisConnection, timeoutMs = 5_000): Promise<void> {
  if (connection.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new AgentqError({
          code: 'UNAVAILABLE',
          message: `Redis did not become ready within ${timeoutMs} ms: start Redis or check REDIS_URL`,
        }),
      );
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onEnd = () => {
      cleanup();
      reject(new AgentqError({ code: 'UNAVAILABLE', message: 'Redis connection closed before it was ready' }));
    };
    const cleanup = () => {
      clearTimeout(timer);
      connection.off('ready', onReady);
      connection.off('end', onEnd);
    };
    connection.once('ready', onReady);
    connection.once('end', onEnd);
  });
}
