import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { createKnowledgeBaseReader, ingestSource, KnowledgeBaseStore } from '@agentq/kb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../fixtures/kb/make-pdf.js';
import { spawnIndexer, type IndexerProcess } from '../fixtures/kb/spawn-indexer.js';
import { waitForIngests } from '../fixtures/kb/wait-for-ingests.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const guide = `# Operations guide

Intro text about the operations of the plant.

## Turbines

The turbine blades are inspected every spring. Inspection of turbines needs two engineers.

## Gearboxes

Gearbox oil is changed yearly.
`;

const faq = `# FAQ

## Billing

Invoices are sent monthly by the accounting team.
`;

describe('knowledge base ingestion through the kb-ingest queue and an indexer process', () => {
  let ctx: TestContext;
  let indexer: IndexerProcess;
  let client: AgentqClient;
  let folder: string;
  let http: Server;
  let httpUrl: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-kb-'));
    await mkdir(join(folder, 'faq'));
    await writeFile(join(folder, 'guide.md'), guide);
    await writeFile(join(folder, 'faq', 'faq.md'), faq);
    await writeFile(
      join(folder, 'manual.pdf'),
      makePdf(['Safety manual cover', 'Hydraulic pumps are primed before the first start']),
    );
    await writeFile(join(folder, 'ignored.bin'), 'not a document');
    http = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/markdown' });
      response.end('# Remote\n\nThe remote page talks about lighthouses.\n');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const address = http.address();
    httpUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/page.md`;
    indexer = await spawnIndexer({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    await client.createKb({ name: 'ops', description: 'plant operations' });
  });

  afterAll(async () => {
    await indexer?.stop();
    await client?.close();
    await new Promise((resolve) => http?.close(resolve));
    await rm(folder, { recursive: true, force: true });
    await ctx?.close();
  });

  it('ingests a folder of Markdown and a PDF, then kb_search finds chunks with file, heading, page and version', async () => {
    const added = await client.addKbSource('ops', { path: folder });
    expect(added.jobs.map((job) => job.source.slice(folder.length + 1)).sort()).toEqual([
      'faq/faq.md',
      'guide.md',
      'manual.pdf',
    ]);
    const results = await waitForIngests(
      client,
      added.jobs.map((job) => job.jobId),
    );
    expect(results.map((result) => result.state)).toEqual(['completed', 'completed', 'completed']);
    const info = await client.getKb('ops');
    expect(info.documents).toHaveLength(3);
    expect(info.version).toBeGreaterThan(0);

    const reader = createKnowledgeBaseReader({ redis: ctx.redis, keyPrefix: ctx.prefix });
    const turbines = await reader.search({ query: 'inspecting turbine', kbs: ['ops'], limit: 3 });
    expect(turbines[0]).toMatchObject({
      kb: 'ops',
      version: info.version,
      location: { file: 'guide.md', heading: 'Operations guide > Turbines' },
    });
    expect(turbines[0]?.text).toContain('two engineers');
    const pumps = await reader.search({ query: 'hydraulic pump', kbs: ['ops'], limit: 3 });
    expect(pumps[0]).toMatchObject({ location: { file: 'manual.pdf', page: 2 } });
    expect(await reader.search({ query: 'invoices', kbs: ['ops', 'no-such-kb'], limit: 3 })).toHaveLength(1);

    const [listing] = await reader.list({ kbs: ['ops'] });
    expect(listing).toMatchObject({ kb: 'ops', version: info.version, description: 'plant operations' });
    expect(listing?.documents.map((document) => document.title).sort()).toEqual(['FAQ', 'Operations guide', undefined]);
    expect(reader.stats.indexBuilds).toBe(1);
  });

  it('treats an unchanged re-add as a no-op: same version, no new index build on the read path', async () => {
    const reader = createKnowledgeBaseReader({ redis: ctx.redis, keyPrefix: ctx.prefix });
    await reader.search({ query: 'gearbox', kbs: ['ops'], limit: 1 });
    const before = await client.getKb('ops');
    const added = await client.addKbSource('ops', { path: folder });
    const results = await waitForIngests(
      client,
      added.jobs.map((job) => job.jobId),
    );
    expect(results.map((result) => result.result?.status)).toEqual(['unchanged', 'unchanged', 'unchanged']);
    expect((await client.getKb('ops')).version).toBe(before.version);
    for (let index = 0; index < 5; index += 1) await reader.search({ query: 'gearbox oil', kbs: ['ops'], limit: 1 });
    expect(reader.stats.indexBuilds).toBe(1);
  });

  it('keeps the last good version when an ingest fails, and drops what the failed ingest wrote', async () => {
    const before = await client.getKb('ops');
    const pdf = before.documents.find((document) => document.kind === 'pdf');
    await writeFile(join(folder, 'manual.pdf'), 'this is not a PDF at all');
    const added = await client.addKbSource('ops', { path: join(folder, 'manual.pdf') });
    const [result] = await waitForIngests(
      client,
      added.jobs.map((job) => job.jobId),
    );
    expect(result?.state).toBe('failed');
    expect(result?.failedReason).toContain('UNSUPPORTED_SOURCE');
    const after = await client.getKb('ops');
    expect(after.version).toBe(before.version);
    expect(after.documents.find((document) => document.kind === 'pdf')?.digest).toBe(pdf?.digest);
    const reader = createKnowledgeBaseReader({ redis: ctx.redis, keyPrefix: ctx.prefix });
    expect((await reader.search({ query: 'hydraulic', kbs: ['ops'], limit: 1 }))[0]?.location.page).toBe(2);
  });

  it('refuses a URL source on a private address unless allowed, and ingests it when allowed', async () => {
    const added = await client.addKbSource('ops', { url: httpUrl });
    const [refused] = await waitForIngests(
      client,
      added.jobs.map((job) => job.jobId),
    );
    expect(refused?.state).toBe('failed');
    expect(refused?.failedReason).toContain('PRIVATE_ADDRESS');

    // The same job, with the operator's opt-in (AGENTQ_ALLOW_PRIVATE_FETCH), through the same code.
    const store = new KnowledgeBaseStore({ redis: ctx.redis, prefix: ctx.prefix });
    const outcome = await ingestSource({
      redis: ctx.redis,
      store,
      job: { kb: 'ops', source: { type: 'url', url: httpUrl }, origin: 'api', requestedAt: Date.now() },
      read: { maxBytes: 1_000_000, allowPrivateNetwork: true },
    });
    expect(outcome.status).toBe('updated');
    const reader = createKnowledgeBaseReader({ redis: ctx.redis, keyPrefix: ctx.prefix });
    const [hit] = await reader.search({ query: 'lighthouse', kbs: ['ops'], limit: 1 });
    expect(hit).toMatchObject({ source: httpUrl, location: { heading: 'Remote' } });
    expect(hit?.location.file).toBeUndefined();
  });

  it('records and shows a URL source without its query, one document per query, and refuses credentials', async () => {
    await client.createKb({ name: 'remote', description: 'pages behind a token' });
    const store = new KnowledgeBaseStore({ redis: ctx.redis, prefix: ctx.prefix });
    for (const query of ['?token=tok-one#top', '?token=tok-two']) {
      const outcome = await ingestSource({
        redis: ctx.redis,
        store,
        job: { kb: 'remote', source: { type: 'url', url: httpUrl + query }, origin: 'api', requestedAt: Date.now() },
        read: { maxBytes: 1_000_000, allowPrivateNetwork: true },
      });
      expect(outcome.status).toBe('updated');
    }
    const { manifest } = await store.current('remote');
    expect(manifest.documents.map((document) => document.source)).toEqual([httpUrl, httpUrl]);
    expect(new Set(manifest.documents.map((document) => document.id)).size).toBe(2);
    const reader = createKnowledgeBaseReader({ redis: ctx.redis, keyPrefix: ctx.prefix });
    const [hit] = await reader.search({ query: 'lighthouse', kbs: ['remote'], limit: 1 });
    expect(hit?.source).toBe(httpUrl);
    const [listing] = await reader.list({ kbs: ['remote'] });
    expect(listing?.documents.map((document) => document.source)).toEqual([httpUrl, httpUrl]);
    const shown = JSON.stringify(manifest) + JSON.stringify(hit) + JSON.stringify(listing);
    for (const secret of ['tok-one', 'tok-two']) expect(shown).not.toContain(secret);

    // Queued jobs name the URL the same way.
    const added = await client.addKbSource('remote', { url: `${httpUrl}?token=tok-three` });
    expect(added.jobs.map((job) => job.source)).toEqual([httpUrl]);
    expect(added.sources.map((source) => source.source)).toEqual([httpUrl]);
    expect((await client.getKbIngest(added.jobs[0]?.jobId ?? '')).source).toBe(httpUrl);
    await waitForIngests(
      client,
      added.jobs.map((job) => job.jobId),
    );

    // Credentials are refused before anything is queued, and by the indexer for an older job,
    // without quoting them.
    const withCredentials = httpUrl.replace('http://', 'http://reader:s3cret-pass@');
    await expect(client.addKbSource('remote', { url: withCredentials })).rejects.toMatchObject({ code: 'VALIDATION' });
    const refused: unknown = await ingestSource({
      redis: ctx.redis,
      store,
      job: { kb: 'remote', source: { type: 'url', url: withCredentials }, origin: 'api', requestedAt: Date.now() },
      read: { maxBytes: 1_000_000, allowPrivateNetwork: true },
    }).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'VALIDATION',
      message: `${httpUrl}: a URL source must not carry credentials (user:password@)`,
    });
  });

  it('refuses an API-origin file outside AGENTQ_KB_FILE_ROOT before anything is queued', async () => {
    await expect(
      client.addKbSource('ops', { path: join(folder, 'guide.md') }, { origin: 'api' }),
    ).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    await expect(client.addKbSource('nope', { path: folder })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.addKbSource('ops', { url: 'file:///etc/passwd' })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
  });
});
