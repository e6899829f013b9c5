import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApi, type RunningApi } from '@agentq/api';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { keyPrefix, loadConfig, silentLogger, type RunSpecInput } from '@agentq/shared';
import { keyNames, pipelineBySlot } from '@agentq/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readCounterNotes, startHttpFixture, tsxLoaderUrl, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { testPrefix } from '../helpers/redis.js';
import { apiCaller, eventually, parseExposition, TEST_TOKEN, type ApiCaller } from '../api/start-test-api.js';
import { warmerMainPath } from '../warmer/warmer-harness.js';
import { spawnWorkerProcess, type WorkerProcess } from '../worker/helpers/worker-harness.js';

// The whole fleet on a local 3-master Redis Cluster: two warmer processes, two worker processes,
// the API and the client, with the default 16 run shards. Runs, approvals with a kill -9,
// warmer takeover, REST and the client; then the load must have reached every master.
const counterTool = 'mcp__fx__counterIncrement';
const watchLeaseMs = 3_000;

describe('agentq on a Redis Cluster', () => {
  const clusterUrl = inject('clusterUrl');
  const masters = inject('clusterNodes');
  const prefix = testPrefix();
  const env = {
    REDIS_URL: clusterUrl,
    AGENTQ_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
    AGENTQ_WATCH_LEASE_MS: String(watchLeaseMs),
    AGENTQ_WORKER_CONCURRENCY: '32',
    AGENTQ_RUN_ATTEMPTS: '2',
  };
  let folder: string;
  let counterFile: string;
  let fixture: HttpFixture;
  let client: AgentqClient;
  let api: RunningApi;
  let http: ApiCaller;
  let nodes: Redis[];
  const workers: WorkerProcess[] = [];
  const warmers: ChildProcess[] = [];

  const spawnWarmer = () => {
    const child = spawn(process.execPath, ['--import', tsxLoaderUrl, warmerMainPath], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    warmers.push(child);
    return child;
  };
  const spec = (note: string, gated = false): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      script: [{ toolCalls: [{ toolName: counterTool, input: { note } }] }, { text: `done ${note}` }],
    },
    input: { prompt: 'count' },
    ...(gated ? { approval: { requireFor: ['fx:counter_increment'] } } : {}),
  });

  beforeAll(async () => {
    nodes = masters.map((node) => new Redis({ host: node.host, port: node.port, maxRetriesPerRequest: 2 }));
    folder = await mkdtemp(join(tmpdir(), 'agentq-cluster-e2e-'));
    counterFile = join(folder, 'counter.log');
    fixture = await startHttpFixture({ tools: 2, listChanged: true, counterFile });
    client = createAgentqClient({ redisUrl: clusterUrl, prefix });
    await client.putServer(
      { id: 'fx', transport: { type: 'streamable-http', url: fixture.url } },
      { origin: 'operator' },
    );
    spawnWarmer();
    spawnWarmer();
    workers.push(await spawnWorkerProcess({ redisUrl: clusterUrl, prefix, env }));
    workers.push(await spawnWorkerProcess({ redisUrl: clusterUrl, prefix, env }));
    api = await startApi({
      config: loadConfig({ ...env, AGENTQ_API_TOKEN: TEST_TOKEN, AGENTQ_API_PORT: '0' }),
      logger: silentLogger(),
    });
    http = apiCaller(api.url);
    await eventually(
      async () => ((await client.getCatalog('fx')).state === 'connected' ? true : undefined),
      60_000,
      'the catalog of fx',
    );
  });

  afterAll(async () => {
    await api?.close();
    await Promise.allSettled(workers.map((worker) => worker.kill()));
    for (const warmer of warmers) if (warmer.exitCode === null) warmer.kill('SIGKILL');
    await client?.close();
    await fixture?.stop();
    for (const node of nodes ?? []) node.disconnect();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('runs on 16 shards, each under its own hash tag', () => {
    expect(client.shards.count).toBe(16);
    expect(new Set(client.shards.all().map((shard) => shard.prefix)).size).toBe(16);
  });

  it('completes 100 runs from the client and over REST, with every master holding keys and serving a share of the commands', async () => {
    for (const node of nodes) await node.config('RESETSTAT');
    const runIds = Array.from({ length: 100 }, (_, index) => `spread-${index}`);
    await Promise.all(
      runIds.map(async (runId, index) => {
        if (index % 2 === 0) {
          await client.enqueueRun(spec(runId), { runId });
        } else {
          const response = await http.call('POST', '/v1/runs', { body: { runId, spec: spec(runId) } });
          expect(response.status).toBe(201);
        }
      }),
    );
    const results = await Promise.all(runIds.map((runId) => client.waitForRun(runId, { timeoutMs: 110_000 })));
    expect(results.map((result) => result.text)).toEqual(runIds.map((runId) => `done ${runId}`));
    const notes = await readCounterNotes(counterFile);
    for (const runId of runIds) expect(notes.filter((note) => note === runId)).toHaveLength(1);

    const shares: Array<{ port: number; keys: number; commands: number }> = [];
    for (const [index, node] of nodes.entries()) {
      let keys = 0;
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
        cursor = next;
        keys += found.length;
      } while (cursor !== '0');
      const stats = await node.info('commandstats');
      const commands = [...stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)]
        .filter(([, name]) => !['info', 'config', 'cluster', 'ping', 'client', 'command', 'scan'].includes(name ?? ''))
        .reduce((sum, [, , calls]) => sum + Number(calls), 0);
      shares.push({ port: masters[index]?.port ?? 0, keys, commands });
    }
    const total = shares.reduce((sum, share) => sum + share.commands, 0);
    console.log(
      `[cluster] per master after 100 runs: ${shares
        .map(
          (share) =>
            `${share.port}: ${share.keys} keys, ${((100 * share.commands) / total).toFixed(1)}% of ${total} commands`,
        )
        .join('; ')}`,
    );
    for (const share of shares) {
      expect(share.keys).toBeGreaterThan(0);
      expect(share.commands).toBeGreaterThan(0);
      expect(share.commands / total).toBeLessThanOrEqual(0.5);
    }

    // /metrics sums the run queues of all 16 shards.
    const metrics = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    const samples = parseExposition(await metrics.text());
    expect(samples.get('agentq_queue_jobs{queue="agent-runs",state="completed"}')).toBeGreaterThanOrEqual(100);
  });

  it('reads keys of every master in one call, replies in order', async () => {
    const keys = client.shards.all().map((shard) => shard.keys.run('spread-0'));
    const runKey = client.shards.forRun('spread-0').keys.run('spread-0');
    const replies = await pipelineBySlot(
      client.redis,
      keys.map((key) => ({ key, add: (pipeline) => pipeline.exists(key) })),
    );
    expect(replies.map(([error]) => error)).toEqual(keys.map(() => null));
    expect(replies.map(([, value]) => value)).toEqual(keys.map((key) => (key === runKey ? 1 : 0)));
  });

  it('parks a gated run, loses its worker to kill -9, and resumes it on another after a REST decision', async () => {
    await client.enqueueRun(spec('gated-1', true), { runId: 'gated-1' });
    const pending = await eventually(async () => {
      const [first] = await client.listPendingApprovals({ runId: 'gated-1' });
      return first;
    }, 60_000);
    expect((await client.getRun('gated-1')).state).toBe('waiting-approval');
    const victim = workers.shift() as WorkerProcess;
    await victim.kill();
    const listed = await http.call('GET', '/v1/approvals');
    expect(listed.status).toBe(200);
    const decided = await http.call('POST', `/v1/approvals/${pending.approvalId}/decision`, {
      body: { approved: true },
    });
    expect(decided.status).toBe(200);
    const result = await client.waitForRun('gated-1', { timeoutMs: 90_000 });
    expect(result.text).toBe('done gated-1');
    expect((await readCounterNotes(counterFile)).filter((note) => note === 'gated-1')).toHaveLength(1);
    // A worker killed mid-run: its runs are taken over from their checkpoint.
    workers.push(await spawnWorkerProcess({ redisUrl: clusterUrl, prefix, env }));
  });

  it('hands a dead warmer’s list_changed watcher to the other warmer', async () => {
    const keys = keyNames(keyPrefix({ prefix, cluster: true }));
    const owner = async () => (await client.redis.get(keys.watchLease('fx'))) ?? undefined;
    {
      const first = await eventually(owner, 30_000, 'a watcher of fx');
      // The lease names the owning warmer; kill whichever warmer holds it.
      const pids = warmers.map((warmer) => warmer.pid);
      const holder = warmers.find((warmer) => first.includes(`-${warmer.pid}-`));
      expect(pids).toContain(holder?.pid);
      holder?.kill('SIGKILL');
      const next = await eventually(
        async () => {
          const current = await owner();
          return current !== undefined && current !== first ? current : undefined;
        },
        60_000,
        'another warmer to take fx over',
      );
      expect(next).not.toBe(first);
      // The survivor watches over its own session: a new tool reaches the cache.
      const added = await fixture.addTool();
      await eventually(
        async () => ((await client.getCatalog('fx')).tools.some((tool) => tool.name === added) ? true : undefined),
        60_000,
        'the new tool in the cache',
      );
    }
  });
});
