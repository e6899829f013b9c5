import { readFile } from 'node:fs/promises';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { runResultSchema, silentLogger, type RunSpecInput } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import {
  createInMemoryKnowledgeBaseReader,
  sampleKnowledgeBases,
} from '../../packages/builtin-tools/src/test-support/in-memory-knowledge-base-reader.js';
import {
  send,
  startLoopbackServer,
  type LoopbackServer,
} from '../../packages/builtin-tools/src/test-support/loopback-server.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import {
  enqueueRun,
  eventually,
  fastTuning,
  runsQueue,
  testConfig,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

const article = await readFile(new URL('../../packages/kb/src/test-support/article.html', import.meta.url), 'utf8');

describe('a run with the builtin tools', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let searxng: LoopbackServer;
  let site: LoopbackServer;
  const reader = createInMemoryKnowledgeBaseReader(sampleKnowledgeBases());

  beforeAll(async () => {
    ctx = createTestContext();
    searxng = await startLoopbackServer((request, response) => {
      const query = new URL(request.path, 'http://x').searchParams.get('q');
      send(
        response,
        200,
        'application/json',
        JSON.stringify({
          query,
          results: [{ url: `${site.origin}/article`, title: 'Reading the tide tables', content: `About ${query}` }],
        }),
      );
    });
    site = await startLoopbackServer((request, response) => {
      if (request.path === '/article') return send(response, 200, 'text/html; charset=utf-8', article);
      return send(response, 404, 'text/plain', 'not here');
    });
    worker = await startAgentWorker({
      config: testConfig({
        redisUrl: ctx.redisUrl,
        prefix: ctx.prefix,
        env: {
          AGENTQ_SEARXNG_URL: searxng.origin,
          // The test site is on loopback; web_fetch may reach its address and port only, not
          // private fetches in general.
          AGENTQ_WEB_FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
        },
      }),
      logger: silentLogger(),
      env: {},
      tuning: fastTuning,
      knowledgeBaseReader: reader,
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await Promise.all([searxng?.close(), site?.close()]);
    await ctx?.close();
  });

  it('searches, reads knowledge bases, and fetches a page only after approval', async () => {
    const spec: RunSpecInput = {
      assistant: {
        model: 'scripted:test',
        settings: { webSearch: {}, webFetch: true, knowledgeBases: ['handbook'] },
        script: [
          {
            toolCalls: [
              { toolName: 'web_search', input: { query: 'tide tables', limit: 3 } },
              { toolName: 'kb_search', input: { query: 'on-call pages' } },
              { toolName: 'kb_list', input: {} },
            ],
          },
          { toolCalls: [{ toolName: 'web_fetch', input: { url: `${site.origin}/article` } }] },
          { text: 'read it all' },
        ],
      },
      input: { prompt: 'plan a walk on the flats' },
      approval: { requireFor: ['web_fetch'] },
    };
    await enqueueRun(queue, { runId: 'builtin-1', spec });

    const [pending] = await eventually(async () => {
      const found = await listPendingApprovals(ctx, { runId: 'builtin-1' });
      return found.length === 1 ? found : undefined;
    });
    expect(pending).toMatchObject({ toolName: 'web_fetch', input: { url: `${site.origin}/article` } });
    // Gated: nothing was fetched before the decision.
    expect(site.requests).toEqual([]);

    await decide(ctx, { approvalId: pending?.approvalId as string, approved: true, decidedBy: 'alice' });
    const finished = await waitForJob(queue, 'builtin-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('read it all');
    expect(result.tools?.inline).toBe(4);

    const call = (name: string) => result.toolCalls.find((each) => each.toolName === name);
    expect(call('web_search')).toMatchObject({
      isError: false,
      output: {
        provider: 'searxng',
        results: [{ title: 'Reading the tide tables', url: `${site.origin}/article`, snippet: 'About tide tables' }],
      },
    });
    expect(call('kb_search')).toMatchObject({
      isError: false,
      output: { results: [{ kb: 'handbook', version: 3, documentId: 'oncall', location: { heading: 'Paging' } }] },
    });
    expect(call('kb_list')?.output).toMatchObject({ knowledgeBases: [{ kb: 'handbook', version: 3 }] });
    const fetched = call('web_fetch');
    expect(fetched).toMatchObject({ isError: false, approval: { approvalId: pending?.approvalId, approved: true } });
    expect(String(fetched?.output)).toContain('## The rule of twelfths');
    expect(site.requests.map((request) => request.path)).toEqual(['/article']);
    expect(reader.calls.every((each) => each.kbs.every((kb) => kb === 'handbook'))).toBe(true);
  });

  it('gives a run whose settings leave them off no builtin tool', async () => {
    await enqueueRun(queue, {
      runId: 'builtin-off',
      spec: {
        assistant: { model: 'scripted:test', settings: { webSearch: false }, script: [{ text: 'nothing to use' }] },
        input: { prompt: 'x' },
      },
    });
    const finished = await waitForJob(queue, 'builtin-off');
    expect(finished.state).toBe('completed');
    expect(runResultSchema.parse(finished.returnvalue).tools).toMatchObject({ inline: 0, deferred: 0 });
  });

  it('returns a refused fetch to the model as a tool error, and the run goes on', async () => {
    await enqueueRun(queue, {
      runId: 'builtin-refused',
      spec: {
        assistant: {
          model: 'scripted:test',
          settings: { webFetch: true, knowledgeBases: ['handbook'] },
          script: [
            {
              toolCalls: [
                { toolName: 'web_fetch', input: { url: 'http://169.254.169.254/latest/meta-data/' } },
                { toolName: 'kb_search', input: { query: 'redis', kb: 'runbooks' } },
              ],
            },
            { text: 'both refused' },
          ],
        },
        input: { prompt: 'x' },
      },
    });
    const finished = await waitForJob(queue, 'builtin-refused');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('both refused');
    for (const name of ['web_fetch', 'kb_search']) {
      expect(result.toolCalls.find((each) => each.toolName === name)?.isError).toBe(true);
    }
    expect(JSON.stringify(result.toolCalls)).toContain('169.254.169.254');
  });
});
