import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES, type RunResult } from '@agentq/shared';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { TEST_TOKEN, parseExposition, startTestApi } from './start-test-api.js';

// What a worker returns for a run whose provider reported prompt caching.
const result: RunResult = {
  runId: 'tokens-1',
  text: 'done',
  finishReason: 'stop',
  steps: [],
  toolCalls: [],
  usage: {
    inputTokens: 1_200,
    outputTokens: 30,
    totalTokens: 1_230,
    cacheReadInputTokens: 900,
    cacheCreationInputTokens: 250,
  },
  catalogVersion: {},
};

describe('/metrics counts the tokens of completed runs, prompt cache included', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let runs: Queue;
  let worker: Worker;
  let workerConnection: ReturnType<TestContext['redis']['duplicate']>;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api } = await startTestApi(ctx));
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    workerConnection = ctx.redis.duplicate({ maxRetriesPerRequest: null });
    worker = new Worker(QUEUE_NAMES.agentRuns, async () => result, {
      connection: workerConnection,
      prefix: ctx.prefix,
    });
  });

  afterAll(async () => {
    await worker.close();
    workerConnection.disconnect();
    await api.close();
    await runs.obliterate({ force: true });
    await runs.close();
    await ctx.close();
  });

  async function scrape(): Promise<Map<string, number>> {
    const response = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    return parseExposition(await response.text());
  }

  it('adds input, output, cache read and cache creation tokens by kind', async () => {
    await runs.add('run', {}, { jobId: 'tokens-1' });
    await vi.waitFor(
      async () => {
        const metrics = await scrape();
        expect(metrics.get('agentq_runs_total{outcome="completed"}')).toBe(1);
      },
      { timeout: 30_000, interval: 100 },
    );
    const metrics = await scrape();
    expect(metrics.get('agentq_run_tokens_total{kind="input"}')).toBe(1_200);
    expect(metrics.get('agentq_run_tokens_total{kind="output"}')).toBe(30);
    expect(metrics.get('agentq_run_tokens_total{kind="cache_read"}')).toBe(900);
    expect(metrics.get('agentq_run_tokens_total{kind="cache_creation"}')).toBe(250);
  });
});
