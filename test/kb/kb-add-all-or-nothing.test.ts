import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningApi } from '@agentq/api';
import { runCli } from '@agentq/cli';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

describe('adding knowledge base sources is all or nothing (client, CLI, REST)', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let client: AgentqClient;
  let queue: Queue;
  let root: string;
  let outside: string;

  const queued = async () => {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
    return Object.values(counts).reduce((sum, count) => sum + count, 0);
  };

  beforeAll(async () => {
    ctx = createTestContext();
    root = await mkdtemp(join(tmpdir(), 'agentq-kb-batch-root-'));
    outside = await mkdtemp(join(tmpdir(), 'agentq-kb-batch-outside-'));
    await writeFile(join(root, 'a.md'), '# A\n\nalpha');
    await writeFile(join(root, 'b.txt'), 'beta');
    await writeFile(join(outside, 'c.md'), '# C');
    // No indexer: whatever is queued stays in the queue to be counted.
    ({ api, http } = await startTestApi(ctx, testConfig(ctx, { AGENTQ_KB_FILE_ROOT: root })));
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, kbFileRoot: root });
    queue = new Queue(QUEUE_NAMES.kbIngest, { connection: ctx.redis, prefix: ctx.prefix });
    await client.createKb({ name: 'batch' });
  });

  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    await client?.close();
    await api?.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
    await ctx?.close();
  });

  it('the client checks every source before it queues any', async () => {
    const missing = join(root, 'missing.md');
    await expect(
      client.addKbSources('batch', [
        { path: join(root, 'a.md') },
        { path: missing },
        { url: 'https://example.test/x' },
      ]),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', field: 'sources.1' });
    await expect(
      client.addKbSources('batch', [{ path: join(root, 'a.md') }, { url: 'not a url' }]),
    ).rejects.toMatchObject({ code: 'VALIDATION' });
    // An API caller: the second file is outside the root.
    await expect(
      client.addKbSources('batch', [{ path: join(root, 'a.md') }, { path: join(outside, 'c.md') }], { origin: 'api' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN', field: 'sources.1' });
    expect(await queued()).toBe(0);
  });

  it('`agentq kb add` with one missing file queues nothing and exits 3; a good batch prints each source', async () => {
    const lines: string[] = [];
    const io = {
      out: (text: string) => lines.push(text),
      err: (text: string) => lines.push(text),
      env: { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' },
    };
    const missing = join(outside, 'missing.md');
    const code = await runCli(['node', 'agentq', 'kb', 'add', 'batch', join(root, 'a.md'), missing, root], io);
    expect(code, lines.join('\n')).toBe(3);
    expect(lines.join('\n')).toContain(missing);
    expect(await queued()).toBe(0);

    lines.length = 0;
    expect(await runCli(['node', 'agentq', 'kb', 'add', 'batch', join(outside, 'c.md'), root], io)).toBe(0);
    // One line per source, with what it became.
    expect(lines.filter((line) => line.includes(join(outside, 'c.md')))).toHaveLength(1);
    expect(lines.filter((line) => line.includes(`${root}: `))).toHaveLength(1);
    expect(await queued()).toBe(3);
    await queue.obliterate({ force: true });
  });

  it('REST: a batch with one bad source queues nothing; a good batch queues every file', async () => {
    const outsideFile = await http.call('POST', '/v1/kbs/batch/sources', {
      body: { sources: [{ path: join(root, 'a.md') }, { path: join(outside, 'c.md') }] },
    });
    expect([outsideFile.status, outsideFile.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const badUrl = await http.call('POST', '/v1/kbs/batch/sources', {
      body: { sources: [{ path: join(root, 'a.md') }, { url: 'ftp://example.test/x' }] },
    });
    expect([badUrl.status, badUrl.body.error.code]).toEqual([400, 'VALIDATION']);
    expect(await queued()).toBe(0);
    const good = await http.call('POST', '/v1/kbs/batch/sources', {
      body: { sources: [{ path: join(root, 'a.md') }, { url: 'https://example.test/x' }] },
    });
    expect(good.status).toBe(202);
    expect(good.body.sources).toEqual([
      { source: join(root, 'a.md'), queued: 1 },
      { source: 'https://example.test/x', queued: 1 },
    ]);
    expect(await queued()).toBe(2);
  });
});
