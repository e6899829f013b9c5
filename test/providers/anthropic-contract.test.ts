import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import {
  anthropicError,
  anthropicText,
  anthropicToolUse,
  startFakeAnthropic,
} from '../fixtures/providers/fake-anthropic-messages.js';
import type { FakeProviderServer } from '../fixtures/providers/fake-provider-server.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import {
  enqueueRun,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

const API_KEY = 'sk-ant-contract-000000';
const breakpoint = { type: 'ephemeral' };

interface MessagesBody {
  model: string;
  max_tokens: number;
  system?: Array<{ type: string; text: string; cache_control?: unknown }>;
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
  tools?: Array<{ name: string; input_schema: unknown; cache_control?: unknown }>;
}

describe('Anthropic Messages API contract (loopback fake)', () => {
  let ctx: TestContext;
  let fake: FakeProviderServer;
  let worker: AgentWorker;
  let queue: Queue;
  let folder: string;
  let counterFile: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-anthropic-contract-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
    fake = await startFakeAnthropic();
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { ANTHROPIC_API_KEY: API_KEY, AGENTQ_ANTHROPIC_BASE_URL: fake.baseUrl },
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
        assistant: { model: 'anthropic:claude-sonnet-4-5', system: 'Be brief.', mcpServers: options.mcpServers ?? [] },
        input: { prompt: 'say hi' },
      },
      attempts: 1,
    });
    const finished = await waitForJob(queue, options.runId, 60_000);
    return { finished, requests: fake.requests.slice(first) };
  }

  it('sends a plain run as one Messages request with the key, the system prompt marked for the cache', async () => {
    fake.enqueue(anthropicText('hello there', { cache_creation_input_tokens: 900, cache_read_input_tokens: 0 }));
    const { finished, requests } = await run({ runId: 'anthropic-plain' });
    expect(finished.state).toBe('completed');
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe(API_KEY);
    expect(request?.headers['anthropic-version']).toEqual(expect.any(String));
    const body = request?.body as MessagesBody;
    expect(body.model).toBe('claude-sonnet-4-5');
    expect(body.max_tokens).toBeGreaterThan(0);
    expect(body.system).toHaveLength(1);
    expect(body.system?.[0]?.text.startsWith('Be brief.')).toBe(true);
    expect(body.system?.[0]?.cache_control).toEqual(breakpoint);
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'say hi' }] }]);
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('hello there');
    expect(result.usage).toMatchObject({ cacheCreationInputTokens: 900 });
  });

  it('offers an inline MCP tool with a cache breakpoint, runs its call once and sends the result back', async () => {
    fake.enqueue(
      anthropicToolUse({ id: 'toolu_contract_1', name: 'mcp__fx__counterIncrement', input: { note: 'contract' } }),
      anthropicText('counted', { cache_read_input_tokens: 700 }),
    );
    const { finished, requests } = await run({ runId: 'anthropic-tool', mcpServers: ['fx'] });
    expect(finished.state).toBe('completed');
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((request) => request.body as MessagesBody);
    const names = first?.tools?.map((tool) => tool.name) ?? [];
    expect(names).toContain('mcp__fx__counterIncrement');
    expect(first?.tools?.find((tool) => tool.name === 'mcp__fx__counterIncrement')?.input_schema).toMatchObject({
      type: 'object',
    });
    expect(first?.tools?.at(-1)?.cache_control).toEqual(breakpoint);
    expect(first?.system?.[0]?.cache_control).toEqual(breakpoint);
    // The second request repeats the same cached prefix, then the call and its result.
    expect(second?.tools).toEqual(first?.tools);
    expect(second?.system).toEqual(first?.system);
    const assistant = second?.messages.find((message) => message.role === 'assistant');
    expect(assistant?.content).toContainEqual(
      expect.objectContaining({
        type: 'tool_use',
        id: 'toolu_contract_1',
        name: 'mcp__fx__counterIncrement',
        input: { note: 'contract' },
      }),
    );
    const last = second?.messages.at(-1);
    expect(last?.role).toBe('user');
    const toolResult = last?.content.find((part) => part.type === 'tool_result');
    expect(toolResult).toMatchObject({ tool_use_id: 'toolu_contract_1' });
    expect(toolResult?.is_error ?? false).toBe(false);
    expect(JSON.stringify(toolResult?.content)).not.toBe('""');
    const notes = (await readFile(counterFile, 'utf8')).split('\n').filter((line) => line.endsWith(' contract'));
    expect(notes).toHaveLength(1);
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('counted');
    expect(result.usage).toMatchObject({ cacheReadInputTokens: 700 });
  });

  it('retries a 529 overloaded answer and a 429 with retry-after, sending the same request again', async () => {
    fake.enqueue(anthropicError(529), anthropicText('after overload'));
    const overloaded = await run({ runId: 'anthropic-529' });
    expect(overloaded.finished.state).toBe('completed');
    expect(overloaded.requests).toHaveLength(2);
    expect(overloaded.requests[1]?.body).toEqual(overloaded.requests[0]?.body);

    fake.enqueue(anthropicError(429, { retryAfterSeconds: 1 }), anthropicText('after rate limit'));
    const limited = await run({ runId: 'anthropic-429' });
    expect(limited.finished.state).toBe('completed');
    expect(limited.requests).toHaveLength(2);
    expect(runResultSchema.parse(limited.finished.returnvalue).text).toBe('after rate limit');
  });
});
