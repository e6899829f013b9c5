import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentqError } from '@agentq/shared';
import { createRedisConnection, redisAnswers, waitForRedis } from '@agentq/store';

/** A Redis for `agentq dev`, and how to let go of it. */
export interface DevRedis {
  url: string;
  /**
   * `--redis` or `REDIS_URL` as given; `local` the one found on 127.0.0.1:6379; `private` a
   * `redis-server` this process started (asked for, or because nothing answered on 6379).
   */
  source: '--redis' | 'REDIS_URL' | 'local' | 'private';
  /** Stops the private `redis-server`, if this process started one. Idempotent. */
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const client = createRedisConnection({ url, role: 'producer', name: 'agentq-dev-probe' });
  client.on('error', () => {});
  try {
    await waitForRedis(client, 3_000);
    return await redisAnswers(client, 3_000);
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

/** How `agentq dev` should pick its Redis. */
export interface FindRedisOptions {
  env: Record<string, string | undefined>;
  /** `--redis <url>`: this one, which must answer. Wins over `REDIS_URL`. */
  url?: string;
  /** `--private-redis`: always start a private `redis-server`, whatever answers elsewhere. */
  private?: boolean;
}

/**
 * `--redis` when given, else `REDIS_URL` when set (either must answer); else 127.0.0.1:6379 when
 * it answers; else (or with `--private-redis`) a private `redis-server` on a free loopback port,
 * without persistence, in a temporary folder, stopped (and its folder removed) on exit. Fails with
 * instructions when none of these works.
 */
export async function findRedis(options: FindRedisOptions): Promise<DevRedis> {
  const { env } = options;
  const none = async () => {};
  if (options.url !== undefined && options.private) {
    throw new AgentqError({
      code: 'USAGE',
      field: 'redis',
      message: 'Give --redis <url> or --private-redis, not both',
    });
  }
  if (options.private) return await startPrivateRedis(env, true);
  const given = options.url !== undefined ? { url: options.url, name: '--redis' as const } : undefined;
  const chosen = given ?? (env.REDIS_URL ? { url: env.REDIS_URL, name: 'REDIS_URL' as const } : undefined);
  if (chosen) {
    if (!/^rediss?(\+cluster)?:\/\//.test(chosen.url)) {
      throw new AgentqError({
        code: 'USAGE',
        field: chosen.name,
        message: `${chosen.name} must be a redis:// or rediss:// URL`,
      });
    }
    if (await answers(chosen.url)) return { url: chosen.url, source: chosen.name, stop: none };
    throw new AgentqError({
      code: 'UNAVAILABLE',
      field: chosen.name,
      message: `${chosen.name} is given but that Redis does not answer PING; start it, or use --private-redis`,
    });
  }
  const local = 'redis://127.0.0.1:6379';
  if (await answers(local)) return { url: local, source: 'local', stop: none };
  return await startPrivateRedis(env, false);
}

async function startPrivateRedis(env: Record<string, string | undefined>, asked: boolean): Promise<DevRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'agentq-dev-redis-'));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  const failed = async () => {
    await removeDir();
    return asked ? noRedisServer() : noRedis();
  };
  let child: ChildProcess;
  try {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory-policy',
        'noeviction',
      ],
      // Its PATH is ours: `redis-server` is looked up where the caller would look it up.
      { stdio: 'ignore', env: { PATH: env.PATH ?? process.env.PATH ?? '' } },
    );
  } catch {
    throw await failed();
  }
  const spawnFailed = new Promise<boolean>((resolve) => child.once('error', () => resolve(true)));
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const spawnError = await Promise.race([spawnFailed, sleep(100).then(() => false)]);
    if (spawnError || child.exitCode !== null) throw await failed();
    if (await answers(url)) {
      let stopped: Promise<void> | undefined;
      return {
        url,
        source: 'private',
        stop() {
          stopped ??= new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }).then(removeDir);
          return stopped;
        },
      };
    }
  }
  child.kill('SIGKILL');
  throw await failed();
}

function noRedisServer(): AgentqError {
  return new AgentqError({
    code: 'UNAVAILABLE',
    field: 'private-redis',
    message:
      '--private-redis needs redis-server, which could not be started: install Redis (Debian: apt-get install redis-server) or use --redis <url>.',
  });
}

function noRedis(): AgentqError {
  return new AgentqError({
    code: 'UNAVAILABLE',
    message:
      'No Redis: nothing answers on 127.0.0.1:6379 and redis-server could not be started. Install Redis (Debian: apt-get install redis-server), start one, or set REDIS_URL.',
  });
}
