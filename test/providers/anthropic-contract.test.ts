import { runResultSchema } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicError,
  anthropicText,
  anthropicToolUse,
  startFakeAnthropic,
} from '../fixtures/providers/fake-anthropic-messages.js';
import { startContractSuite, type ContractSuite } from './helpers/contract-suite.js';

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
  let suite: ContractSuite;
  const run = (options: { runId: string; mcpServers?: string[] }) =>
    suite.run({ ...options, model: 'anthropic:claude-sonnet-4-5' });

  beforeAll(async () => {
    suite = await startContractSuite({
      fake: await startFakeAnthropic(),
      env: (baseUrl) => ({ ANTHROPIC_API_KEY: API_KEY, AGENTQ_ANTHROPIC_BASE_URL: baseUrl }),
    });
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('sends a plain run as one Messages request with the key, the system prompt marked for the cache', async () => {
    suite.fake.enqueue(anthropicText('hello there', { cache_creation_input_tokens: 900, cache_read_input_tokens: 0 }));
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
    // The last message is a breakpoint too, so that the next step reads the conversation from the cache.
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'say hi', cache_control: breakpoint }] },
    ]);
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('hello there');
    expect(result.usage).toMatchObject({ cacheCreationInputTokens: 900 });
  });

  it('offers an inline MCP tool with a cache breakpoint, runs its call once and sends the result back', async () => {
    suite.fake.enqueue(
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
    expect(toolResult).toMatchObject({ tool_use_id: 'toolu_contract_1', cache_control: breakpoint });
    // Only the last message of a request is a breakpoint: the earlier ones lose theirs.
    expect(JSON.stringify(second?.messages.slice(0, -1))).not.toContain('cache_control');
    expect(toolResult?.is_error ?? false, JSON.stringify(toolResult)).toBe(false);
    expect(JSON.stringify(toolResult?.content)).not.toBe('""');
    const notes = (await suite.counterNotes()).filter((line) => line.endsWith(' contract'));
    expect(notes).toHaveLength(1);
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('counted');
    expect(result.usage).toMatchObject({ cacheReadInputTokens: 700 });
  });

  it('retries a 529 overloaded answer and a 429 with retry-after, sending the same request again', async () => {
    suite.fake.enqueue(anthropicError(529), anthropicText('after overload'));
    const overloaded = await run({ runId: 'anthropic-529' });
    expect(overloaded.finished.state).toBe('completed');
    expect(overloaded.requests).toHaveLength(2);
    expect(overloaded.requests[1]?.body).toEqual(overloaded.requests[0]?.body);

    suite.fake.enqueue(anthropicError(429, { retryAfterSeconds: 1 }), anthropicText('after rate limit'));
    const limited = await run({ runId: 'anthropic-429' });
    expect(limited.finished.state).toBe('completed');
    expect(limited.requests).toHaveLength(2);
    expect(runResultSchema.parse(limited.finished.returnvalue).text).toBe('after rate limit');
  });
});
