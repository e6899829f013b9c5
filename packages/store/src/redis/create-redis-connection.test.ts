import { Cluster, Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedisConnection, parseRedisUrl, waitForRedis, type RedisConnection } from './create-redis-connection.js';

// Port 1 on loopback refuses connections: these tests never reach a Redis.
const nowhere = 'redis://127.0.0.1:1';
const opened: RedisConnection[] = [];

function open(options: Parameters<typeof createRedisConnection>[0]): RedisConnection {
  const connection = createRedisConnection(options);
  connection.on('error', () => {});
  opened.push(connection);
  return connection;
}

afterEach(() => {
  for (const connection of opened.splice(0)) connection.disconnect();
});

describe('createRedisConnection', () => {
  it('gives workers connections that retry forever, as BullMQ requires', () => {
    const connection = open({ url: nowhere, role: 'worker', name: 'agentq-worker' });
    expect(connection).toBeInstanceOf(Redis);
    const options = (connection as Redis).options;
    expect(options.maxRetriesPerRequest).toBeNull();
    expect(options.enableReadyCheck).toBe(false);
    expect(options.connectionName).toBe('agentq-worker');
  });

  it('gives producers connections that fail fast instead of queueing commands', async () => {
    const connection = open({ url: nowhere, role: 'producer' });
    const options = (connection as Redis).options;
    expect(options.enableOfflineQueue).toBe(false);
    expect(options.maxRetriesPerRequest).toBe(1);
    // Redis is down: the command is rejected at once rather than parked in memory.
    await expect(connection.get('anything')).rejects.toThrow();
  });

  it('reads host, port, database and URL-encoded credentials from the URL', () => {
    const connection = open({ url: 'redis://some%40user:p%40ss%3Aword@127.0.0.1:1/3', role: 'producer' });
    const options = (connection as Redis).options;
    expect(options).toMatchObject({ host: '127.0.0.1', port: 1, db: 3, username: 'some@user', password: 'p@ss:word' });
    expect(options.tls).toBeUndefined();
  });

  it('turns TLS on for rediss:// URLs', () => {
    const connection = open({ url: 'rediss://127.0.0.1:1', role: 'worker' });
    expect((connection as Redis).options.tls).toEqual({});
  });

  it('creates a cluster client with the role settings on every node', () => {
    const worker = open({ url: nowhere, role: 'worker', cluster: true });
    expect(worker).toBeInstanceOf(Cluster);
    expect((worker as Cluster).options.redisOptions).toMatchObject({ maxRetriesPerRequest: null });
    expect((worker as Cluster).options.enableOfflineQueue).toBe(true);

    const producer = open({ url: nowhere, role: 'producer', cluster: true });
    expect((producer as Cluster).options.redisOptions).toMatchObject({
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
    });
    expect((producer as Cluster).options.enableOfflineQueue).toBe(false);
  });

  it('connects to a cluster through every node of a redis+cluster:// URL', () => {
    const connection = open({ url: 'rediss+cluster://u:p%40w@127.0.0.1:1,127.0.0.2:2', role: 'producer' });
    expect(connection).toBeInstanceOf(Cluster);
    const cluster = connection as Cluster;
    expect((cluster as unknown as { startupNodes: unknown }).startupNodes).toEqual([
      { host: '127.0.0.1', port: 1 },
      { host: '127.0.0.2', port: 2 },
    ]);
    expect(cluster.options.redisOptions).toMatchObject({ username: 'u', password: 'p@w', tls: {} });
  });

  it('takes seed nodes from the nodes option', () => {
    const connection = open({ url: nowhere, role: 'worker', nodes: [{ host: '127.0.0.3', port: 3 }] });
    expect((connection as unknown as { startupNodes: unknown }).startupNodes).toEqual([{ host: '127.0.0.3', port: 3 }]);
  });
});

describe('parseRedisUrl', () => {
  it('leaves a plain URL a single node', () => {
    expect(parseRedisUrl('redis://h:7/2')).toMatchObject({ cluster: false, nodes: [{ host: 'h', port: 7 }] });
  });
});

describe('waitForRedis', () => {
  it('rejects when the connection closes before it is ready', async () => {
    const connection = open({ url: nowhere, role: 'producer' });
    const waiting = waitForRedis(connection, 5_000);
    connection.disconnect();
    await expect(waiting).rejects.toThrow();
  });

  it('rejects after its timeout when Redis never answers', async () => {
    const connection = open({ url: nowhere, role: 'producer' });
    await expect(waitForRedis(connection, 50)).rejects.toThrow();
  });
});
