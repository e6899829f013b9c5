import { runResultSchema } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openaiError,
  openaiFunctionCall,
  openaiText,
  startFakeOpenAIResponses,
} from '../fixtures/providers/fake-openai-responses.js';
import { startContractSuite, type ContractSuite } from './helpers/contract-suite.js';

const API_KEY = 'sk-contract-000000';

interface ResponsesBody {
  model: string;
  input: Array<Record<string, unknown>>;
  tools?: Array<{ type: string; name: string; parameters: unknown }>;
}

describe('OpenAI Responses API contract (loopback fake)', () => {
  let suite: ContractSuite;
  const run = (options: { runId: string; mcpServers?: string[] }) =>
    suite.run({ ...options, model: 'openai:gpt-4o-mini' });

  beforeAll(async () => {
    suite = await startContractSuite({
      fake: await startFakeOpenAIResponses(),
      env: (baseUrl) => ({ OPENAI_API_KEY: API_KEY, AGENTQ_OPENAI_BASE_URL: baseUrl }),
    });
  });

  afterAll(async () => {
    await suite?.close();
  });

  it('sends a plain run as one Responses request with the key, the system prompt first', async () => {
    suite.fake.enqueue(openaiText('hello there', { cachedTokens: 12 }));
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
    suite.fake.enqueue(
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
    const notes = (await suite.counterNotes()).filter((line) => line.endsWith(' contract'));
    expect(notes).toHaveLength(1);
    expect(runResultSchema.parse(finished.returnvalue).text).toBe('counted');
  });

  it('retries a 429 with retry-after and a 500, sending the same request again', async () => {
    suite.fake.enqueue(openaiError(429, { retryAfterSeconds: 1 }), openaiText('after rate limit'));
    const limited = await run({ runId: 'openai-429' });
    expect(limited.finished.state).toBe('completed');
    expect(limited.requests).toHaveLength(2);
    expect(limited.requests[1]?.body).toEqual(limited.requests[0]?.body);

    suite.fake.enqueue(openaiError(500), openaiText('after server error'));
    const failed = await run({ runId: 'openai-500' });
    expect(failed.finished.state).toBe('completed');
    expect(failed.requests).toHaveLength(2);
  });
});
