import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** A Redis the test suite can use, and how to stop it if the suite started it. */
export interface TestRedis {
  url: string;
  source: 'REDIS_URL' | 'local' | 'redis-server' | 'testcontainers';
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_500,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** A TCP port on 127.0.0.1 that was free a moment ago (nothing listens on it now). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function startRedisServer(): Promise<TestRedis | null> {
  const port = await freePort();
  let child: ChildProcess;
  try {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
  } catch {
    return null;
  }
  const failed = await new Promise<boolean>((resolve) => {
    child.once('error', () => resolve(true));
    setTimeout(() => resolve(false), 200);
  });
  if (failed) return null;
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i += 1) {
    if (await answers(url)) {
      return {
        url,
        source: 'redis-server',
        stop: async () => {
          child.kill('SIGTERM');
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  return null;
}

async function startContainer(): Promise<TestRedis | null> {
  try {
    const { GenericContainer } = await import('testcontainers');
    const container = await new GenericContainer('redis:7')
      .withExposedPorts(6379)
      .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
      .start();
    return {
      url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
      source: 'testcontainers',
      stop: async () => {
        await container.stop();
      },
    };
  } catch {
    return null;
  }
}

/**
 * Finds a Redis for the tests: `REDIS_URL`; else 127.0.0.1:6379 if it answers; else a
 * `redis-server` from PATH on a free port without persistence; else a testcontainers `redis:7`
 * when Docker answers: the first that works. A `REDIS_URL` that does not answer is reported and
 * passed over. Throws with instructions when none works: Redis tests never skip.
 */
export async function getTestRedis(): Promise<TestRedis> {
  const fromEnv = process.env.REDIS_URL;
  if (fromEnv) {
    if (await answers(fromEnv)) return { url: fromEnv, source: 'REDIS_URL', stop: async () => {} };
    // The first that works wins; say loudly that the configured one did not.
    console.warn(`[integration] REDIS_URL=${fromEnv} does not answer PING; trying the next option`);
  }
  const local = 'redis://127.0.0.1:6379';
  if (await answers(local)) return { url: local, source: 'local', stop: async () => {} };
  const spawned = await startRedisServer();
  if (spawned) return spawned;
  const container = await startContainer();
  if (container) return container;
  throw new Error(
    'No Redis for the integration tests. Do one of: set REDIS_URL to a Redis 7 server; start one on ' +
      '127.0.0.1:6379 (for example `redis-server --daemonize yes --save "" --appendonly no`); install ' +
      'redis-server (Debian: `apt-get install redis-server`) so the tests can start a private one; or run a Docker engine.',
  );
}

/** A fresh key prefix for one test file or test: `test-<uuid>`. */
export function testPrefix(): string {
  return `test-${randomUUID()}`;
}

/**
 * Deletes every key under `prefix` (its hash-tagged form, and the hash tags of its run shards and
 * servers, `{<prefix>.…}`), with SCAN + UNLINK. Only keys this test created: the shared Redis is
 * never flushed.
 */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`, `{${prefix}.*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  return deleted;
}
