import { createServer, type Server } from 'node:http';
import type { AgentWorker, ModelResolver } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { Queue } from 'bullmq';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { enqueueRun, runsQueue, startTestWorker, stopWorkerSuite, waitForJob } from './helpers/worker-harness.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const imageBytes = Buffer.from('agentq-image-bytes');

/**
 * A model that reads no URL itself (as `scripted` and `openai-compatible`), so the loop downloads;
 * or, with `readsImageUrls`, one that takes image URLs as they are (as `openai`).
 */
function recordingModels(calls: LanguageModelV3CallOptions[], readsImageUrls = false): ModelResolver {
  const model = new MockLanguageModelV3({
    supportedUrls: readsImageUrls ? { 'image/*': [/^https?:\/\/.*$/] } : {},
    doGenerate: async (options) => {
      calls.push(options);
      return {
        content: [{ type: 'text', text: 'seen' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    },
  });
  return { resolve: () => ({ model, modelId: 'openai:mock-model', contextWindow: 200_000 }) as never };
}

describe('image and file URLs in a run’s messages', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];
  const suites: Array<{ ctx: TestContext; worker: AgentWorker; queue: Queue }> = [];

  async function startSuite(env: Record<string, string>, calls: LanguageModelV3CallOptions[], readsImageUrls = false) {
    const ctx = createTestContext();
    const worker = await startTestWorker({ ...ctx, env, models: recordingModels(calls, readsImageUrls) });
    const queue = runsQueue(ctx);
    const suite = { ctx, worker, queue };
    suites.push(suite);
    return suite;
  }

  const spec = (url: string) => ({
    assistant: { model: 'openai:mock-model' },
    input: {
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', image: url },
          ],
        },
      ],
    },
  });

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      // The first request for /flaky.png meets a host that is briefly down.
      if (request.url === '/flaky.png' && hits.filter((hit) => hit === '/flaky.png').length === 1) {
        response.writeHead(503).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(imageBytes);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    for (const suite of suites) await stopWorkerSuite(suite);
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails the run at once with INPUT_DOWNLOAD_FAILED when the URL is on a private address', async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const { queue } = await startSuite({}, calls);
    await enqueueRun(queue, { runId: 'private-image', spec: spec(`${base}/private.png`), attempts: 3 });
    const finished = await waitForJob(queue, 'private-image');
    expect(finished.state).toBe('failed');
    expect(finished.attemptsMade).toBe(1);
    expect(finished.failedReason).toMatch(/^INPUT_DOWNLOAD_FAILED: .*private, loopback or reserved address/);
    expect(hits).not.toContain('/private.png');
    expect(calls).toHaveLength(0);
  });

  it('hands the downloaded bytes to the model when private fetches are allowed', async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const { queue } = await startSuite({ AGENTQ_ALLOW_PRIVATE_FETCH: 'true' }, calls);
    await enqueueRun(queue, { runId: 'allowed-image', spec: spec(`${base}/allowed.png`), attempts: 3 });
    const finished = await waitForJob(queue, 'allowed-image');
    expect(finished.failedReason).toBeUndefined();
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('seen');
    expect(hits.filter((hit) => hit === '/allowed.png')).toHaveLength(1);
    const user = calls[0]?.prompt.find((message) => message.role === 'user');
    const file = Array.isArray(user?.content) ? user.content.find((part) => part.type === 'file') : undefined;
    expect(file?.mediaType).toBe('image/png');
    expect(Buffer.from(file?.data as Uint8Array).equals(imageBytes)).toBe(true);
  });

  it('fails the run at once when a URL the model reads itself is on a private address', async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const { queue } = await startSuite({}, calls, true);
    await enqueueRun(queue, {
      runId: 'private-read-by-model',
      spec: spec(`${base}/read.png?token=secret`),
      attempts: 3,
    });
    const finished = await waitForJob(queue, 'private-read-by-model');
    expect(finished.state).toBe('failed');
    expect(finished.attemptsMade).toBe(1);
    expect(finished.failedReason).toMatch(/^INPUT_DOWNLOAD_FAILED: .*private, loopback or reserved address/);
    expect(finished.failedReason).toContain(`${base}/read.png`);
    expect(finished.failedReason).not.toContain('secret');
    expect(calls).toHaveLength(0);
  });

  it('passes a URL the model reads itself on untouched when private fetches are allowed', async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const { queue } = await startSuite({ AGENTQ_ALLOW_PRIVATE_FETCH: 'true' }, calls, true);
    await enqueueRun(queue, { runId: 'allowed-read-by-model', spec: spec(`${base}/read.png`), attempts: 3 });
    const finished = await waitForJob(queue, 'allowed-read-by-model');
    expect(finished.failedReason).toBeUndefined();
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('seen');
    expect(hits).not.toContain('/read.png');
    const user = calls[0]?.prompt.find((message) => message.role === 'user');
    const file = Array.isArray(user?.content) ? user.content.find((part) => part.type === 'file') : undefined;
    expect(file?.data).toEqual(new URL(`${base}/read.png`));
  });

  it('tries the run again, from its checkpoint, when the host answers 503', async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const { queue } = await startSuite({ AGENTQ_ALLOW_PRIVATE_FETCH: 'true' }, calls);
    await enqueueRun(queue, { runId: 'flaky-image', spec: spec(`${base}/flaky.png`), attempts: 3 });
    const finished = await waitForJob(queue, 'flaky-image');
    // The first attempt's failure stays on the job as its last failed reason.
    expect(finished.failedReason).toMatch(/flaky.png answered HTTP 503/);
    expect(finished.state).toBe('completed');
    expect(finished.attemptsMade).toBe(2);
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('seen');
    expect(hits.filter((hit) => hit === '/flaky.png')).toHaveLength(2);
    expect(calls).toHaveLength(1);
  });

  it('stops at AGENTQ_INPUT_DOWNLOAD_MAX_BYTES', async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const { queue } = await startSuite(
      { AGENTQ_ALLOW_PRIVATE_FETCH: 'true', AGENTQ_INPUT_DOWNLOAD_MAX_BYTES: String(imageBytes.length - 1) },
      calls,
    );
    await enqueueRun(queue, { runId: 'big-image', spec: spec(`${base}/big.png`), attempts: 3 });
    const finished = await waitForJob(queue, 'big-image');
    expect(finished.state).toBe('failed');
    expect(finished.attemptsMade).toBe(1);
    expect(finished.failedReason).toMatch(/^INPUT_DOWNLOAD_FAILED: .*AGENTQ_INPUT_DOWNLOAD_MAX_BYTES/);
    expect(calls).toHaveLength(0);
  });
});
