import type { AgentWorker } from '@agentq/agent-worker';
import { createToolVectorStore, toolEmbeddingDigest } from '@agentq/registry';
import type { CatalogEntry } from '@agentq/shared';
import { requestRefresh } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEmbeddingServer, type FakeEmbeddingServer } from '../fixtures/embedding/fake-embedding-server.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';
import { everythingCommand } from '../worker/helpers/catalog.js';
import { runsQueue, startTestWorker } from '../worker/helpers/worker-harness.js';
import { searchThroughRun } from './search-through-run.js';

const model = 'openai-compatible:fake-embed';

describe('hybrid tool search through a warmer and a worker (fake embedding server, real Redis)', () => {
  let embeddings: FakeEmbeddingServer;
  let harness: WarmerHarness;
  let worker: AgentWorker | undefined;
  let queue: Queue | undefined;
  let entry: CatalogEntry;
  let env: Record<string, string>;

  beforeAll(async () => {
    embeddings = await startFakeEmbeddingServer();
    env = { AGENTQ_EMBEDDING_MODEL: model, AGENTQ_EMBEDDING_BASE_URL: embeddings.baseUrl };
    harness = await createWarmerHarness();
    await harness.startWarmer({ env });
    await harness.putServer({
      id: 'everything',
      transport: { type: 'stdio', command: everythingCommand, args: ['stdio'] },
    });
    entry = await waitFor(() => harness.entry('everything'), { what: 'the first catalog entry' });
  });

  afterAll(async () => {
    await worker?.close();
    await queue?.obliterate({ force: true }).catch(() => {});
    await queue?.close();
    await harness?.close();
    await embeddings?.close();
  });

  it('the warmer stores a vector for every tool before it writes the list, and never embeds a tool twice', async () => {
    expect(entry.tools.length).toBeGreaterThan(5);
    const store = createToolVectorStore({ redis: harness.ctx.redis, prefix: harness.ctx.prefix, modelId: model });
    const digests = entry.tools.map(toolEmbeddingDigest);
    const stored = await store.read(digests);
    expect(stored.size).toBe(new Set(digests).size);
    expect(embeddings.texts).toHaveLength(new Set(digests).size);

    const before = (await harness.status('everything'))?.lastAttemptAt ?? 0;
    await requestRefresh(harness.queue, { serverId: 'everything', reason: 'on-demand' });
    await waitFor(async () => ((await harness.status('everything'))?.lastAttemptAt ?? 0) > before, {
      what: 'a second refresh',
    });
    expect(embeddings.texts).toHaveLength(new Set(digests).size);
  });

  it('the worker embeds the query and fuses vector ranks: a misspelt need still finds its tool', async () => {
    worker = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env });
    queue = runsQueue({ redis: harness.ctx.redis, prefix: harness.ctx.prefix });
    // No word of this query survives analysis into any tool's terms; only the vectors connect it.
    const query = 'tinny imaeg';
    const names = await searchThroughRun(queue, { runId: 'hybrid-1', server: 'everything', query });
    expect(names[0]).toBe('mcp__everything__getTinyImage');
    expect(embeddings.texts).toContain(query);
  });
});
