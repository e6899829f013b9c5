import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { chunkIdOf, chunkSections, createKnowledgeBaseReader, documentIdOf, markdownSections } from '@agentq/kb';
import { keyNames } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnIndexer, type IndexerProcess } from '../fixtures/kb/spawn-indexer.js';
import { waitForIngests } from '../fixtures/kb/wait-for-ingests.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// A large document: 150 sections of about 25 chunks each.
function largeMarkdown(): string {
  const parts: string[] = ['# Large handbook'];
  for (let section = 0; section < 150; section += 1) {
    parts.push(`## Section ${section}`);
    for (let paragraph = 0; paragraph < 25; paragraph += 1) {
      parts.push(
        Array.from({ length: 180 }, (_, word) => `term${(section * 31 + paragraph * 7 + word) % 5_000}`).join(' ') +
          ` marker${section}x${paragraph}.`,
      );
    }
  }
  return parts.join('\n\n');
}

describe('kill -9 of the indexer during a large ingest', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let folder: string;
  const indexers: IndexerProcess[] = [];
  // Short locks, so the dead indexer's job is noticed within seconds.
  const env = { AGENTQ_INDEXER_LOCK_MS: '2000', AGENTQ_KB_MAX_SOURCE_BYTES: String(64 * 1024 * 1024) };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-kb-crash-'));
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    await client.createKb({ name: 'big' });
  });

  afterAll(async () => {
    for (const indexer of indexers) await indexer.stop();
    await client?.close();
    await rm(folder, { recursive: true, force: true });
    await ctx?.close();
  });

  it(
    'resumes on another indexer from its progress marker, with no chunk lost or duplicated',
    { timeout: 300_000 },
    async () => {
      const path = join(folder, 'handbook.md');
      await writeFile(path, largeMarkdown());
      const first = await spawnIndexer({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, env });
      indexers.push(first);
      const { jobs } = await client.addKbSource('big', { path });
      const jobId = jobs[0]?.jobId ?? '';

      // Kill it once it has written some batches but not all of them.
      const deadline = Date.now() + 120_000;
      let writtenAtKill = 0;
      let total = 0;
      for (;;) {
        const info = await client.getKbIngest(jobId);
        expect(info.state).not.toBe('completed');
        if (info.progress && info.progress.written > 0) {
          writtenAtKill = info.progress.written;
          total = info.progress.total;
          break;
        }
        if (Date.now() > deadline) throw new Error('the ingest never reported progress');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await first.kill();
      expect(writtenAtKill).toBeLessThan(total);
      expect((await client.getKbIngest(jobId)).state).toBe('active');

      const second = await spawnIndexer({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, env });
      indexers.push(second);
      const [result] = await waitForIngests(client, [jobId], 240_000).catch((error: Error) => {
        throw new Error(`${error.message}\nsecond indexer output:\n${second.output().slice(-4_000)}`);
      });
      expect(result?.state, second.output().slice(-4_000)).toBe('completed');
      // It resumed instead of starting over.
      const resumed = second
        .output()
        .split('\n')
        .find((line) => line.includes('"resuming ingest"'));
      expect(resumed).toBeDefined();
      expect(JSON.parse(resumed ?? '{}').resumeAt).toBeGreaterThan(0);

      // Exactly the planned chunks, by id: none lost, none duplicated.
      const bytes = await readFile(path);
      const digest = createHash('sha256').update(bytes).digest('hex');
      const documentId = documentIdOf({ type: 'file', path });
      const planned = chunkSections(markdownSections(bytes.toString('utf8')).sections);
      const expectedIds = planned.map((chunk) => chunkIdOf({ documentId, digest, ordinal: chunk.ordinal }));
      expect(result?.result?.chunks).toBe(planned.length);
      expect(planned.length).toBe(total);
      const stored = await ctx.redis.hkeys(keyNames(ctx.prefix).kbChunks('big', documentId, digest));
      expect(stored.length).toBe(expectedIds.length);
      expect(new Set(stored)).toEqual(new Set(expectedIds));

      const info = await client.getKb('big');
      expect(info.chunks).toBe(planned.length);
      const reader = createKnowledgeBaseReader({ redis: ctx.redis, keyPrefix: ctx.prefix });
      const [hit] = await reader.search({ query: 'marker149x24', kbs: ['big'], limit: 1 });
      expect(hit?.location.heading).toBe('Large handbook > Section 149');
    },
  );
});
