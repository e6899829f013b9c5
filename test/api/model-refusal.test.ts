import type { RunningApi } from '@agentq/api';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { AgentqError, QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startTestApi, testConfig, type ApiCaller } from './start-test-api.js';

const specWith = (model: string) => ({ assistant: { model }, input: { prompt: 'hi' } });

// Refused by syntax or provider; whether a provider serves a well-formed name is not knowable offline.
const refused = [
  'nosuch:model',
  'OpenAI:gpt-4o',
  'gpt-4o',
  'openai:',
  'openai:gpt 4o',
  'anthropic:claude\nsonnet',
  'openai:gpt-4o\u0000',
  'mock:model',
];
const accepted = [
  'openai:gpt-4o-mini',
  'anthropic:claude-sonnet-4-5',
  'openai-compatible:llama3.1:8b',
  'scripted:demo',
];

describe('unknown model providers and malformed model ids are refused at enqueue', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let client: AgentqClient;
  let runs: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx, testConfig(ctx)));
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await client.close();
    await api.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await runs.close();
    await ctx.close();
  });

  it('answers POST /v1/runs with 400 VALIDATION on spec.assistant.model, and enqueues nothing', async () => {
    for (const model of refused) {
      const response = await http.call('POST', '/v1/runs', { body: { spec: specWith(model) } });
      expect(response.status, JSON.stringify(model)).toBe(400);
      expect(response.body.error, JSON.stringify(model)).toMatchObject({
        code: 'VALIDATION',
        field: 'spec.assistant.model',
      });
    }
    expect(await runs.count()).toBe(0);
    for (const [index, model] of accepted.entries()) {
      const response = await http.call('POST', '/v1/runs', {
        body: { runId: `rest-ok-${index}`, spec: specWith(model) },
      });
      expect(response.status, model).toBe(201);
    }
  });

  it('makes the client reject with VALIDATION on assistant.model before writing', async () => {
    const before = await runs.count();
    for (const model of refused) {
      const error = await client.enqueueRun(specWith(model)).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(AgentqError.isInstance(error), JSON.stringify(model)).toBe(true);
      expect(error).toMatchObject({ code: 'VALIDATION', field: 'assistant.model' });
    }
    expect(await runs.count()).toBe(before);
    for (const [index, model] of accepted.entries()) {
      expect(await client.enqueueRun(specWith(model), { runId: `client-ok-${index}` })).toMatchObject({
        created: true,
      });
    }
  });
});
