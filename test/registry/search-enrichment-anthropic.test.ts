import { createSearchEnricher, type SearchEnricherConfig } from '@agentq/models';
import { AgentqError } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicText, anthropicToolUse, startFakeAnthropic } from '../fixtures/providers/fake-anthropic-messages.js';
import type { FakeProviderServer, RecordedRequest } from '../fixtures/providers/fake-provider-server.js';

const requests = ['deploy the billing service', 'ship search to staging'];

/**
 * The enricher's answer in the shape the request asked for: the Messages API's structured output
 * (`output_format`) as JSON text, or the forced `json` tool the SDK uses for a model without it.
 */
function answerOf(request: RecordedRequest) {
  const body = request.body as { tools?: Array<{ name?: string }> };
  if (body.tools?.some((tool) => tool.name === 'json')) {
    return anthropicToolUse({ id: 'toolu_fake_json', name: 'json', input: { requests } });
  }
  return anthropicText(JSON.stringify({ requests }));
}

const config = (overrides: Partial<SearchEnricherConfig>): SearchEnricherConfig => ({
  searchEnrichModel: 'anthropic:claude-haiku-4-5',
  searchEnrichExamples: 2,
  openaiApiKey: undefined,
  openaiBaseUrl: undefined,
  openaiCompatibleBaseUrl: undefined,
  openaiCompatibleApiKey: undefined,
  anthropicApiKey: undefined,
  anthropicBaseUrl: undefined,
  ...overrides,
});

describe('search enrichment through an anthropic:* model (loopback Messages API)', () => {
  let fake: FakeProviderServer;

  beforeAll(async () => {
    fake = await startFakeAnthropic({ finish: (request) => answerOf(request) });
  });

  afterAll(async () => {
    await fake?.close();
  });

  it("writes examples with the run models' key and base URL", async () => {
    const enricher = createSearchEnricher(
      config({ anthropicApiKey: 'sk-ant-enrich-test', anthropicBaseUrl: fake.baseUrl }),
    );
    if (!enricher) throw new Error('the enricher should be configured');
    expect(enricher.modelId).toBe('anthropic:claude-haiku-4-5');
    const result = await enricher.examplesFor('Name: deploy_service\nDescription: Deploys a service.');
    expect(result.examples).toEqual(requests);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe('sk-ant-enrich-test');
    expect((request?.body as { model: string }).model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(request?.body)).toContain('deploy_service');
  });

  it('refuses anthropic:* without ANTHROPIC_API_KEY at start-up, before any request', () => {
    const before = fake.requests.length;
    let caught: unknown;
    try {
      createSearchEnricher(config({ anthropicBaseUrl: fake.baseUrl }));
    } catch (error) {
      caught = error;
    }
    expect(AgentqError.isInstance(caught) && caught.code).toBe('SEARCH_ENRICH_CONFIG_INVALID');
    expect(fake.requests).toHaveLength(before);
  });
});
