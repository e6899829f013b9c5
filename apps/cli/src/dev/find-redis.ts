import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentqError, createRedisConnection, waitForRedis } from '@agentq/shared';

/** A Redis for `agentq dev`, and how to let go of it. */
export interface DevRedis {
  url: string;
  source: 'REDIS_URL' | 'local' | 'private';
  /** Stops the private `redis-server`, if this process started one. Idempotent. */
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const client = createRedisConnection({ url, role: 'producer', name: 'agentq-dev-probe' });
  client.on('error', () => {});
  try {
    await waitForRedis(client, 3_000);
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function freePort(): Promise<number> {
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

/**
 * `REDIS_URL` when set (it must answer); else 127.0.0.1:6379 when it answers; else a private
 * `redis-server` on a free loopback port, without persistence, stopped on exit. Fails with
 * instructions when none of these works.
 */
export async function findRedis(env: Record<string, string | undefined>): Promise<DevRedis> {
  const none = async () => {};
  if (env.REDIS_URL) {
    if (await answers(env.REDIS_URL)) return { url: env.REDIS_URL, source: 'REDIS_URL', stop: none };
    throw new AgentqError({
      code: 'UNAVAILABLE',
      field: 'REDIS_URL',
      message: 'REDIS_URL is set but does not answer PING; start that Redis or unset REDIS_URL',
    });
  }
  const local = 'redis://127.0.0.1:6379';
  if (await answers(local)) return { url: local, source: 'local', stop: none };

  const port = await freePort();
  let child: ChildProcess;
  try {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    throw noRedis();
  }
  const spawnFailed = new Promise<boolean>((resolve) => child.once('error', () => resolve(true)));
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const failed = await Promise.race([spawnFailed, sleep(100).then(() => false)]);
    if (failed) throw noRedis();
    if (await answers(url)) {
      let stopped: Promise<void> | undefined;
      return {
        url,
        source: 'private',
        stop() {
          stopped ??= new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          });
          return stopped;
        },
      };
    }
  }
  child.kill('SIGKILL');
  throw noRedis();
}

function noRedis(): AgentqError {
  return new AgentqError({
    code: 'UNAVAILABLE',
    message:
      'No Redis: nothing answers on 127.0.0.1:6379 and redis-server could not be started. Install Redis (Debian: apt-get install redis-server), start one, or set REDIS_URL.',
  });
}
