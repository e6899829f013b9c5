import type { RunningApi } from '@agentq/api';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { AgentqError, defaultRunSpecLimits } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { enqueueRaw, runsQueue, waitForJob } from '../worker/helpers/worker-harness.js';
import { startTestWorker } from '../worker/helpers/worker-harness.js';
import type { AgentWorker } from '@agentq/agent-worker';

// Hole 8: nothing bounded the producer path. A 10 MB prompt was accepted and rewritten by every
// checkpoint, and 10 000 mcpServers went through.
const limit = defaultRunSpecLimits.maxInputBytes;
const assistant = { model: 'scripted:demo' };
const spec = (extra: Record<string, unknown> = {}) => ({ assistant, input: { prompt: 'hello' }, ...extra });

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(AgentqError.isInstance(error)).toBe(true);
  return error as AgentqError;
}

describe('run spec limits (hole 8)', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let api: RunningApi;
  let http: ApiCaller;
  let raisedApi: RunningApi;
  let raisedHttp: ApiCaller;
  let worker: AgentWorker;
  let queue: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    ({ api, http } = await startTestApi(ctx));
    ({ api: raisedApi, http: raisedHttp } = await startTestApi(
      ctx,
      testConfig(ctx, { AGENTQ_MAX_INPUT_BYTES: String(4 * limit) }),
    ));
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await api?.close();
    await raisedApi?.close();
    await client?.close();
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
  });

  it('refuses a 10 MB prompt in the client, naming the field, the limit and the size', async () => {
    const prompt = 'x'.repeat(10 * 1024 * 1024);
    const error = await refusal(client.enqueueRun({ assistant, input: { prompt } }));
    expect(error).toMatchObject({ code: 'VALIDATION', field: 'input.prompt' });
    expect(error.message).toContain(String(limit));
    expect(error.message).toContain(String(prompt.length + 2));
  });

  it('refuses a 10 MB body over REST with 413 before parsing it, and a prompt just over the limit with 400', async () => {
    const huge = await http.call('POST', '/v1/runs', {
      body: { assistant, input: { prompt: 'x'.repeat(10 * 1024 * 1024) } },
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const over = await http.call('POST', '/v1/runs', { body: { assistant, input: { prompt: 'x'.repeat(limit) } } });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatchObject({ code: 'VALIDATION', field: 'spec.input.prompt' });
    expect(over.body.error.message).toContain(String(limit));
  });

  it('counts the total size of input messages', async () => {
    const messages = Array.from({ length: 300 }, () => ({ role: 'user', content: 'y'.repeat(1024) }));
    const error = await refusal(client.enqueueRun({ assistant, input: { messages } }));
    expect(error).toMatchObject({ code: 'VALIDATION', field: 'input.messages' });
    const fits = await client.enqueueRun({ assistant, input: { messages: messages.slice(0, 200) } });
    expect(fits.created).toBe(true);
  });

  it('caps servers, patterns, tool ids and metadata, naming the limit and the count', async () => {
    const cases: Array<[Record<string, unknown>, string, number]> = [
      [
        { assistant: { ...assistant, mcpServers: Array.from({ length: 10_000 }, (_, index) => `s${index}`) } },
        'assistant.mcpServers',
        10_000,
      ],
      [
        { approval: { requireFor: Array.from({ length: 101 }, (_, index) => `p${index}*`) } },
        'approval.requireFor',
        101,
      ],
      [{ approval: { requireFor: ['*'.repeat(257)] } }, 'approval.requireFor.0', 257],
      [{ tools: Array.from({ length: 501 }, (_, index) => `fx:tool${index}`) }, 'tools', 501],
      [{ tools: [`fx:${'t'.repeat(300)}`] }, 'tools.0', 303],
      [
        { metadata: Object.fromEntries(Array.from({ length: 65 }, (_, index) => [`k${index}`, index])) },
        'metadata',
        65,
      ],
      [{ metadata: { big: 'z'.repeat(20_000) } }, 'metadata', 20_010],
    ];
    for (const [extra, field, value] of cases) {
      const error = await refusal(client.enqueueRun(spec(extra)));
      expect(error, field).toMatchObject({ code: 'VALIDATION', field });
      expect(error.message, field).toContain(String(value));
      const rest = await http.call('POST', '/v1/runs', { body: spec(extra) });
      expect(rest.status, field).toBe(400);
      expect(rest.body.error, field).toMatchObject({ code: 'VALIDATION', field: `spec.${field}` });
    }
    // At the limits everything is accepted (the servers must exist: unknown ones are refused).
    for (let index = 0; index < 200; index += 1) {
      await client.putServer(
        { id: `s${index}`, transport: { type: 'stdio', command: 'node' } },
        { origin: 'operator' },
      );
    }
    const atLimits = await client.enqueueRun(
      spec({
        assistant: { ...assistant, mcpServers: Array.from({ length: 200 }, (_, index) => `s${index}`) },
        approval: { requireFor: Array.from({ length: 100 }, () => '*'.repeat(256)) },
      }),
    );
    expect(atLimits.created).toBe(true);
  });

  it('follows AGENTQ_MAX_INPUT_BYTES in the API and the client', async () => {
    const prompt = 'x'.repeat(2 * limit);
    const accepted = await raisedHttp.call('POST', '/v1/runs', {
      body: { runId: 'raised-rest', spec: { assistant, input: { prompt } } },
    });
    expect(accepted.status).toBe(201);
    const raisedClient = createAgentqClient({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      runSpecLimits: { maxInputBytes: 4 * limit },
    });
    try {
      expect((await raisedClient.enqueueRun({ assistant, input: { prompt } })).created).toBe(true);
    } finally {
      await raisedClient.close();
    }
  });

  it('makes a worker under the default limits fail an oversized job at once, without retry', async () => {
    await enqueueRaw(queue, {
      runId: 'oversized',
      data: { assistant, input: { prompt: 'x'.repeat(limit + 1) } },
      attempts: 3,
    });
    const finished = await waitForJob(queue, 'oversized');
    expect(finished.state).toBe('failed');
    expect(finished.attemptsMade).toBe(1);
    expect(finished.failedReason).toContain('input.prompt');
  });
});
