import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningApi } from '@agentq/api';
import { startIndexer, type Indexer } from '@agentq/indexer';
import { silentLogger } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentq } from '../cli/run-agentq.js';
import { parseExposition, startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const RUNS_ONLY_TOKEN = 'runs-only-token-0123456789';

describe('knowledge bases through REST, the CLI and an indexer', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let indexer: Indexer;
  let root: string;
  let outside: string;

  const waitForIngest = async (kb: string, jobId: string) => {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const { body } = await http.call('GET', `/v1/kbs/${kb}/ingests/${jobId}`);
      if (body.state === 'completed' || body.state === 'failed') return body;
      if (Date.now() > deadline) throw new Error(`ingest ${jobId} not finished: ${JSON.stringify(body)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  beforeAll(async () => {
    ctx = createTestContext();
    root = await mkdtemp(join(tmpdir(), 'agentq-kb-root-'));
    outside = await mkdtemp(join(tmpdir(), 'agentq-kb-outside-'));
    await mkdir(join(root, 'manuals'));
    await writeFile(
      join(root, 'manuals', 'turbines.md'),
      '# Turbines\n\n## Blades\n\nBlades are inspected every spring.\n',
    );
    await writeFile(join(root, 'manuals', 'notes.txt'), 'Plain notes about the cooling pond.');
    await writeFile(
      join(root, 'page.html'),
      '<html><head><title>Pumps</title><script>var x=1</script></head><body><h1>Pumps</h1><p>Pumps are primed by hand.</p></body></html>',
    );
    await writeFile(join(outside, 'secret.md'), '# Secret\n\nnot for callers');
    const config = testConfig(ctx, {
      AGENTQ_KB_FILE_ROOT: root,
      AGENTQ_API_TOKENS: `runner:runs=${RUNS_ONLY_TOKEN}`,
    });
    ({ api, http } = await startTestApi(ctx, config));
    indexer = await startIndexer({ config, logger: silentLogger() });
  });

  afterAll(async () => {
    await indexer?.close();
    await api?.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
    await ctx?.close();
  });

  it('creates, fills, searches, lists and removes a knowledge base over REST', async () => {
    expect((await http.call('POST', '/v1/kbs', { body: { name: 'plant', description: 'plant docs' } })).status).toBe(
      201,
    );
    const again = await http.call('POST', '/v1/kbs', { body: { name: 'plant' } });
    expect([again.status, again.body.error.code]).toEqual([409, 'CONFLICT']);

    const added = await http.call('POST', '/v1/kbs/plant/sources', { body: { path: root } });
    expect(added.status).toBe(202);
    expect(added.body.jobs).toHaveLength(3);
    for (const job of added.body.jobs) expect((await waitForIngest('plant', job.jobId)).state).toBe('completed');

    const search = await http.call('POST', '/v1/kbs/plant/search', { body: { query: 'inspecting blades', limit: 2 } });
    expect(search.status).toBe(200);
    expect(search.body.hits[0]).toMatchObject({
      kb: 'plant',
      location: { file: 'manuals/turbines.md', heading: 'Turbines > Blades' },
    });
    const pumps = await http.call('POST', '/v1/kbs/plant/search', { body: { query: 'primed pumps' } });
    expect(pumps.body.hits[0].location.file).toBe('page.html');
    expect(pumps.body.hits[0].text).not.toContain('var x');

    const listed = await http.call('GET', '/v1/kbs');
    expect(listed.body.kbs).toEqual([expect.objectContaining({ name: 'plant', description: 'plant docs', chunks: 3 })]);
    const one = await http.call('GET', '/v1/kbs/plant');
    const notes = one.body.documents.find((document: { kind: string }) => document.kind === 'text');
    const removed = await http.call('DELETE', `/v1/kbs/plant/documents/${notes.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.version).toBeGreaterThan(one.body.version);
    expect((await http.call('GET', '/v1/kbs/plant')).body.documents).toHaveLength(2);

    const metrics = parseExposition(
      await (
        await fetch(`${http.url}/metrics`, { headers: { authorization: 'Bearer test-token-0123456789abcdef' } })
      ).text(),
    );
    expect(metrics.get('agentq_kb_ingested_chunks_total{kb="plant"}')).toBe(3);
    expect(metrics.get('agentq_kb_ingests_total{kb="plant",outcome="updated"}')).toBe(3);
    expect(metrics.get('agentq_queue_jobs{queue="kb-ingest",state="completed"}')).toBe(3);

    const openapi = await http.call('GET', '/v1/openapi.json');
    expect(Object.keys(openapi.body.paths)).toEqual(
      expect.arrayContaining(['/v1/kbs', '/v1/kbs/{kb}/sources', '/v1/kbs/{kb}/search']),
    );

    expect((await http.call('DELETE', '/v1/kbs/plant')).status).toBe(204);
    expect((await http.call('GET', '/v1/kbs/plant')).status).toBe(404);
  });

  it('refuses bad input with the field named, files outside the root, and tokens without the kbs scope', async () => {
    const badName = await http.call('POST', '/v1/kbs', { body: { name: 'Bad Name' } });
    expect([badName.status, badName.body.error.code, badName.body.error.field]).toEqual([400, 'VALIDATION', 'name']);
    expect((await http.call('POST', '/v1/kbs', { body: { name: 'guarded' } })).status).toBe(201);

    const escape = await http.call('POST', '/v1/kbs/guarded/sources', { body: { path: join(outside, 'secret.md') } });
    expect([escape.status, escape.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const traversal = await http.call('POST', '/v1/kbs/guarded/sources', {
      body: { path: `${root}/../${outside.split('/').pop()}/secret.md` },
    });
    expect([traversal.status, traversal.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const ftp = await http.call('POST', '/v1/kbs/guarded/sources', { body: { url: 'ftp://example.com/a.md' } });
    expect([ftp.status, ftp.body.error.code]).toEqual([400, 'VALIDATION']);
    const both = await http.call('POST', '/v1/kbs/guarded/sources', {
      body: { url: 'https://example.com', path: root },
    });
    expect(both.status).toBe(400);
    const unknown = await http.call('POST', '/v1/kbs/missing/sources', { body: { url: 'https://example.com/a.md' } });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const emptyQuery = await http.call('POST', '/v1/kbs/guarded/search', { body: { query: '  ' } });
    expect([emptyQuery.status, emptyQuery.body.error.field]).toEqual([400, 'query']);

    const forbidden = await http.call('GET', '/v1/kbs', { token: RUNS_ONLY_TOKEN });
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('runs agentq kb create|add|list|search|remove against the same Redis', { timeout: 300_000 }, async () => {
    const env = { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' };
    expect((await runAgentq(['kb', 'create', 'cli-kb', '-d', 'from the cli'], env)).code).toBe(0);
    expect((await runAgentq(['kb', 'create', 'cli-kb'], env)).code).toBe(4);
    const badName = await runAgentq(['kb', 'create', 'Bad'], env);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('name');

    // The CLI is the operator's producer: any local path, here one outside the API's root.
    const add = await runAgentq(['kb', 'add', 'cli-kb', outside, '--wait', '--json'], env, 120_000);
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout).jobs[0]).toMatchObject({
      state: 'completed',
      result: { status: 'updated', chunks: 1 },
    });

    const search = await runAgentq(['kb', 'search', 'cli-kb', 'secret', '--json'], env);
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout)[0]).toMatchObject({
      kb: 'cli-kb',
      location: { file: 'secret.md', heading: 'Secret' },
    });

    const list = await runAgentq(['kb', 'list'], env);
    expect(list.stdout).toMatch(/cli-kb\s+\d+\s+1\s+1\s+from the cli/);
    expect((await runAgentq(['kb', 'add', 'cli-kb', join(outside, 'missing.md')], env)).code).toBe(3);
    expect((await runAgentq(['kb', 'search', 'cli-kb', 'x', '--limit', '0'], env)).code).toBe(2);
    expect((await runAgentq(['kb', 'remove', 'cli-kb'], env)).code).toBe(0);
    expect((await runAgentq(['kb', 'list', 'cli-kb'], env)).code).toBe(3);
  });
});
