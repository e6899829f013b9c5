import { isKeyUnder } from '../keys.js';
import { createRedisConnection, isClusterConnection, waitForRedis } from './create-redis-connection.js';

/** What `agentq dev` tells about the Redis it is going to write into. */
export interface RedisInspection {
  /** `redis_version` of INFO server, when the server tells. */
  version?: string;
  /** Keys seen outside agentq's prefix; `undefined` when not counted (a cluster). */
  otherKeys?: number;
  /** Whether the SCAN went through the whole key space (otherwise `otherKeys` is a lower bound). */
  complete: boolean;
}

/** How many keys the SCAN looks at, at most: enough to tell, bounded on a big Redis. */
const SCAN_LIMIT = 10_000;

/**
 * Reads the server version and counts keys that are not under `keyPrefix` with a bounded SCAN
 * (never KEYS, which blocks a big Redis). Cluster URLs are not scanned.
 */
export async function inspectRedis(options: { url: string; keyPrefix: string }): Promise<RedisInspection> {
  const client = createRedisConnection({ url: options.url, role: 'producer', name: 'agentq-dev-inspect' });
  client.on('error', () => {});
  try {
    await waitForRedis(client, 3_000);
    const info = await client.info('server').catch(() => '');
    const version = /^redis_version:(\S+)/m.exec(info)?.[1];
    if (isClusterConnection(client)) return { ...(version ? { version } : {}), complete: false };
    let cursor = '0';
    let scanned = 0;
    let otherKeys = 0;
    do {
      const [next, keys] = await client.scan(cursor, 'COUNT', 1_000);
      cursor = next;
      scanned += keys.length;
      otherKeys += keys.filter((key) => !isKeyUnder(options.keyPrefix, key)).length;
    } while (cursor !== '0' && scanned < SCAN_LIMIT);
    return { ...(version ? { version } : {}), otherKeys, complete: cursor === '0' };
  } finally {
    client.disconnect();
  }
}
