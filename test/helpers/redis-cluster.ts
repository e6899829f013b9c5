import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A local Redis Cluster of `redis-server` processes, started for the tests. */
export interface TestRedisCluster {
  /** `redis+cluster://127.0.0.1:<p1>,127.0.0.1:<p2>,…`: what `REDIS_URL` takes. */
  url: string;
  /** The masters, in port order. */
  nodes: Array<{ host: string; port: number }>;
  /** Stops every node and removes their directories. */
  stop(): Promise<void>;
}

async function portFree(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A first port in [from, to) such that it, the next `count - 1` and their cluster bus ports (+10000) are free. */
async function freePortRun(options: { from: number; to: number; count: number }): Promise<number> {
  const span = options.to - options.from - options.count;
  const start = Math.floor(Math.random() * span);
  for (let offset = 0; offset < span; offset += 1) {
    const base = options.from + ((start + offset) % span);
    let free = true;
    for (let index = 0; index < options.count && free; index += 1) {
      free = (await portFree(base + index)) && (await portFree(base + index + 10_000));
    }
    if (free) return base;
  }
  throw new Error(`no ${options.count} free ports between ${options.from} and ${options.to}`);
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} within ${timeoutMs} ms`);
}

async function ask(port: number, ...command: string[]): Promise<string> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return String(await client.call(command[0] as string, ...command.slice(1)));
  } finally {
    client.disconnect();
  }
}

/**
 * Starts a local Redis Cluster: `masters` `redis-server` processes with `--cluster-enabled yes`
 * on free ports in [7100, 7200) (by default), each in its own temporary directory, joined with
 * `redis-cli --cluster create --cluster-yes` (no replicas), and waits until every node reports
 * `cluster_state:ok`. `stop()` kills exactly these processes and removes their directories.
 */
export async function startRedisCluster(
  options: { masters?: number; portFrom?: number; portTo?: number } = {},
): Promise<TestRedisCluster> {
  const masters = options.masters ?? 3;
  const base = await freePortRun({ from: options.portFrom ?? 7100, to: options.portTo ?? 7200, count: masters });
  const root = await mkdtemp(join(tmpdir(), 'agentq-cluster-'));
  const children: ChildProcess[] = [];
  const nodes = Array.from({ length: masters }, (_, index) => ({ host: '127.0.0.1', port: base + index }));
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    await rm(root, { recursive: true, force: true });
  };
  try {
    for (const node of nodes) {
      const dir = join(root, String(node.port));
      await import('node:fs/promises').then((fs) => fs.mkdir(dir));
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(node.port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, 'nodes.conf'),
          '--cluster-node-timeout',
          '5000',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--maxmemory-policy',
          'noeviction',
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      await waitFor(
        async () => (await ask(node.port, 'PING')) === 'PONG',
        `redis-server on ${node.port} did not answer`,
      );
    }
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `${node.host}:${node.port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    for (const node of nodes) {
      await waitFor(
        async () => (await ask(node.port, 'CLUSTER', 'INFO')).includes('cluster_state:ok'),
        `node ${node.port} did not report cluster_state:ok`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis+cluster://${nodes.map((node) => `${node.host}:${node.port}`).join(',')}`, nodes, stop };
}
