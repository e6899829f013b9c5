import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import type { FakeProviderServer } from '../fixtures/providers/fake-provider-server.js';
import {
  openaiError,
  openaiFunctionCall,
  openaiText,
  startFakeOpenAIResponses,
} from '../fixtures/providers/fake-openai-responses.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

const API_KEY = 'sk-contract-000000';

interface ResponsesBody {
  model: string;
  input: Array<Record<string, unknown>>;
  tools?: Array<{ type: string; name: string; parameters: unknown }>;
}

describe('OpenAI Responses API contract (loopback fake)', () => {
  let ctx: TestContext;
  let fake: FakeProviderServer;
  let worker: AgentWorker;
  let queue: Queue;
  let folder: string;
  let counterFile: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-openai-contract-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
    fake = await startFakeOpenAIResponses();
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { OPENAI_API_KEY: API_KEY, AGENTQ_OPENAI_BASE_URL: fake.baseUrl },
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await fake?.close();
    await stopWorkerSuite({ worker, queue, ctx });
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  async function run(options: { runId: string; mcpServers?: string[] }) {
    const first = fake.requests.length;
    await enqueueRun(queue, {
      runId: options.runId,
      spec: {
        assistant: { model: 'openai:gpt-4o-mini', system: 'Be brief.', mcpServers: options.mcpServers ?? [] },
        input: { prompt: 'say hi' },
      },
      attempts: 1,
    });
    const finished = await waitForJob(queue, options.runId, 60_000);
    return { finished, requests: fake.requests.slice(first) };
  }

  it('sends a plain run as one Responses request with the key, the system prompt first', async () => {
    fake.enqueue(openaiText('hello there', { cachedTokens: 12 }));
    const { finished, requests } = await run({ runId: 'openai-plain' });
    expect(finished.state).toBe('completed');
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/responses');
    expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const body = request?.body as ResponsesBody;
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.input[0]).toMatchObject({ role: 'system' });
    expect(String(body.input[0]?.content).startsWith('Be brief.')).toBe(true);
    expect(body.input.at(-1)).toEqual({ role: 'user', content: [{ type: 'input_text', text: 'say hi' }] });
    // Cache breakpoints are Anthropic's; nothing of them leaks into an OpenAI request.
    expect(JSON.stringify(body)).not.toContain('cache_control');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('hello there');
    expect(result.usage).toMatchObject({ cacheReadInputTokens: 12 });
  });

  it('offers an inline MCP tool as a function, runs its call once and sends the output back', async () => {
    fake.enqueue(
      openaiFunctionCall({ callId: 'call_contract_1', name: 'mcp__fx__counterIncrement', input: { note: 'contract' } }),
      openaiText('counted'),
    );
    const { finished, requests } = await run({ runId: 'openai-tool', mcpServers: ['fx'] });
    expect(finished.state).toBe('completed');
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((request) => request.body as ResponsesBody);
    const offered = first?.tools?.find((tool) => tool.name === 'mcp__fx__counterIncrement');
    expect(offered).toMatchObject({ type: 'function', parameters: { type: 'object' } });
    expect(second?.tools).toEqual(first?.tools);
    const output = second?.input.find((item) => item.type === 'function_call_output');
    expect(output).toMatchObject({ call_id: 'call_contract_1' });
    expect(String(output?.output ?? '').length).toBeGreaterThan(0);
    const notes = (await readFile(counterFile, 'utf8')).split('\n').filter((line) => line.endsWith(' contract'));
    expect(notes).toHaveLength(1);
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('counted');
  });

  it('retries a 429 with retry-after and a 500, sending the same request again', async () => {
    fake.enqueue(openaiError(429, { retryAfterSeconds: 1 }), openaiText('after rate limit'));
    const limited = await run({ runId: 'openai-429' });
    expect(limited.finished.state).toBe('completed');
    expect(limited.requests).toHaveLength(2);
    expect(limited.requests[1]?.body).toEqual(limited.requests[0]?.body);

    fake.enqueue(openaiError(500), openaiText('after server error'));
    const failed = await run({ runId: 'openai-500' });
    expect(failed.finished.state).toBe('completed');
    expect(failed.requests).toHaveLength(2);
  });
});
