import { Cluster, Redis, type RedisOptions } from 'ioredis';

/** A connection to Redis, single node or cluster. */
export type RedisConnection = Redis | Cluster;

/** Options of {@link createRedisConnection}. */
export interface CreateRedisConnectionOptions {
  url: string;
  /**
   * `worker`: blocking BullMQ connections, which must retry forever (`maxRetriesPerRequest: null`).
   * `producer`: request/response use, which must fail fast when Redis is down instead of queueing
   * commands in memory.
   */
  role: 'worker' | 'producer';
  /** @default false */
  cluster?: boolean;
  /** Connection name shown by `CLIENT LIST`. */
  name?: string;
}

/** Creates an ioredis connection with the settings BullMQ needs for the given role. */
export function createRedisConnection(options: CreateRedisConnectionOptions): RedisConnection {
  const parsed = new URL(options.url);
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
  if (options.cluster) {
    return new Cluster([{ host: parsed.hostname, port: Number(parsed.port || 6379) }], {
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

/** Waits until a producer connection is ready, failing after `timeoutMs`. */
export async function waitForRedis(connection: RedisConnection, timeoutMs = 5_000): Promise<void> {
  if (connection.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const onEnd = () => {
      cleanup();
      reject(new Error('Redis connection closed before it was ready'));
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
