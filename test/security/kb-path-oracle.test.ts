import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningApi } from '@agentq/api';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { readSource } from '@agentq/kb';
import { AgentqError } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// Hole 7 (KB part): a file path outside AGENTQ_KB_FILE_ROOT must get one answer whether or not the
// file exists, through every way in (REST, the client, the indexer reading an ingest job), and the
// answer must not echo where a path or a link inside the root really leads.

describe('KB file sources: no existence oracle outside the root', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let client: AgentqClient;
  let root: string;
  let outside: string;

  /** Pairs of paths outside the root: one that exists, one that does not. */
  let outsidePairs: Array<[exists: string, missing: string]>;

  beforeAll(async () => {
    ctx = createTestContext();
    root = await mkdtemp(join(tmpdir(), 'agentq-oracle-root-'));
    outside = await mkdtemp(join(tmpdir(), 'agentq-oracle-outside-'));
    await mkdir(join(outside, 'private'));
    await writeFile(join(outside, 'private', 'secret.md'), '# Secret\n');
    await writeFile(join(root, 'inside.md'), '# Inside\n');
    // Links the operator left inside the root, pointing out of it.
    await symlink(join(outside, 'private'), join(root, 'linked-folder'));
    await symlink(join(outside, 'private', 'secret.md'), join(root, 'linked-file.md'));
    await symlink(join(outside, 'private', 'missing.md'), join(root, 'dangling.md'));
    const outsideName = outside.split('/').pop() as string;
    outsidePairs = [
      [join(outside, 'private', 'secret.md'), join(outside, 'private', 'missing.md')],
      [join(outside, 'private', 'secret.md'), join(outside, 'no-such-folder', 'missing.md')],
      [`${root}/../${outsideName}/private/secret.md`, `${root}/../${outsideName}/private/missing.md`],
      [join(root, 'linked-folder', 'secret.md'), join(root, 'linked-folder', 'missing.md')],
      [join(root, 'linked-file.md'), join(root, 'dangling.md')],
      [join(root, 'linked-folder', 'secret.md'), join(root, 'linked-folder', 'deeper', 'missing.md')],
    ];
    const config = testConfig(ctx, { AGENTQ_KB_FILE_ROOT: root });
    ({ api, http } = await startTestApi(ctx, config));
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, kbFileRoot: root });
    expect((await http.call('POST', '/v1/kbs', { body: { name: 'oracle' } })).status).toBe(201);
  });

  afterAll(async () => {
    await client?.close();
    await api?.close();
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
    await ctx?.close();
  });

  interface Answer {
    status?: number;
    code: string;
    message: string;
  }

  const failureOf = async (promise: Promise<unknown>): Promise<Answer> =>
    await promise.then(
      () => ({ code: 'none', message: '' }),
      (error: unknown) =>
        AgentqError.isInstance(error)
          ? { code: error.code, message: error.message }
          : { code: 'not-an-agentq-error', message: String(error) },
    );

  const viaRest = async (path: string): Promise<Answer> => {
    const { status, body } = await http.call('POST', '/v1/kbs/oracle/sources', { body: { path } });
    return { status, code: body.error?.code, message: body.error?.message };
  };

  const ways: Record<string, (path: string) => Promise<Answer>> = {
    REST: viaRest,
    'the client': (path) => failureOf(client.addKbSource('oracle', { path }, { origin: 'api' })),
    // What a queued ingest job would record as its failure.
    'the indexer': (path) =>
      failureOf(readSource({ source: { type: 'file', path }, origin: 'api', maxBytes: 1_000_000, fileRoot: root })),
  };

  it.each(Object.keys(ways))('%s answers alike for an outside path that exists and one that does not', async (way) => {
    const answer = ways[way] as (path: string) => Promise<Answer>;
    for (const [exists, missing] of outsidePairs) {
      const [a, b] = [await answer(exists), await answer(missing)];
      expect(a.code).toBe('FORBIDDEN');
      if (way === 'REST') expect(a.status).toBe(403);
      expect(b).toEqual(a);
      expect(a.message).not.toContain(outside);
    }
  });

  it('inside the root, a missing file is NOT_FOUND and an existing one is queued', async () => {
    const missing = await viaRest(join(root, 'missing.md'));
    expect([missing.status, missing.code]).toEqual([404, 'NOT_FOUND']);
    expect(
      (await http.call('POST', '/v1/kbs/oracle/sources', { body: { path: join(root, 'inside.md') } })).status,
    ).toBe(202);
  });
});
