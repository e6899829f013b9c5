import { AgentqError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { createModelResolver } from './create-model-resolver.js';
import { contextWindowOf, FALLBACK_CONTEXT_WINDOW } from './known-models.js';

const noKeys = {
  openaiApiKey: undefined,
  openaiBaseUrl: undefined,
  anthropicApiKey: undefined,
  anthropicBaseUrl: undefined,
  openaiCompatibleBaseUrl: undefined,
  openaiCompatibleApiKey: undefined,
};

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return AgentqError.isInstance(error) ? error.code : 'not-agentq';
  }
  return undefined;
}

describe('createModelResolver', () => {
  it('resolves scripted models from the spec script, and scripted:demo without one', () => {
    const resolver = createModelResolver({ config: noKeys });
    const scripted = resolver.resolve({ model: 'scripted:test', script: [{ text: 'hi' }] });
    expect(scripted.model.provider).toBe('scripted');
    expect(scripted.contextWindow).toBe(FALLBACK_CONTEXT_WINDOW);
    expect(resolver.resolve({ model: 'scripted:demo' }).model.modelId).toBe('demo');
    expect(codeOf(() => resolver.resolve({ model: 'scripted:other' }))).toBe('VALIDATION');
  });

  it('refuses unknown providers and providers without a key, as non-retryable', () => {
    const resolver = createModelResolver({ config: noKeys });
    expect(codeOf(() => resolver.resolve({ model: 'nosuch:model' }))).toBe('PROVIDER_UNKNOWN');
    expect(codeOf(() => resolver.resolve({ model: 'openai:gpt-4o' }))).toBe('PROVIDER_KEY_MISSING');
    expect(codeOf(() => resolver.resolve({ model: 'anthropic:claude-sonnet-4-5' }))).toBe('PROVIDER_KEY_MISSING');
    expect(codeOf(() => resolver.resolve({ model: 'openai-compatible:llama3' }))).toBe('PROVIDER_KEY_MISSING');
    expect(codeOf(() => resolver.resolve({ model: 'nocolon' }))).toBe('MODEL_INVALID');
  });

  it('builds real providers when their keys are configured', () => {
    const resolver = createModelResolver({
      config: {
        ...noKeys,
        openaiApiKey: 'sk-test-000000',
        anthropicApiKey: 'sk-ant-test-000000',
        openaiCompatibleBaseUrl: 'http://127.0.0.1:11434/v1',
      },
    });
    expect(resolver.resolve({ model: 'openai:gpt-4o-mini' }).contextWindow).toBe(128_000);
    expect(resolver.resolve({ model: 'anthropic:claude-sonnet-4-5' }).model.modelId).toBe('claude-sonnet-4-5');
    expect(resolver.resolve({ model: 'openai-compatible:llama3' }).model.modelId).toBe('llama3');
  });

  it('shares one model object between runs of the same real model, and never a scripted one', () => {
    const resolver = createModelResolver({
      config: { ...noKeys, openaiCompatibleBaseUrl: 'http://127.0.0.1:11434/v1' },
    });
    const first = resolver.resolve({ model: 'openai-compatible:llama3' });
    const again = resolver.resolve({ model: 'openai-compatible:llama3', contextWindow: 4_096 });
    expect(again.model).toBe(first.model);
    expect(again.contextWindow).toBe(4_096);
    expect(resolver.resolve({ model: 'openai-compatible:qwen' }).model).not.toBe(first.model);
    const script = [{ text: 'hi' }];
    expect(resolver.resolve({ model: 'scripted:a', script }).model).not.toBe(
      resolver.resolve({ model: 'scripted:a', script }).model,
    );
  });
});

describe('createModelResolver base URLs', () => {
  async function requestedUrl(options: { model: string; config: Parameters<typeof createModelResolver>[0]['config'] }) {
    const urls: string[] = [];
    const fetch = (input: string | URL | Request) => {
      urls.push(input instanceof Request ? input.url : String(input));
      return Promise.reject(new Error('no network in unit tests'));
    };
    const { model } = createModelResolver({ config: options.config, fetch }).resolve({ model: options.model });
    await Promise.resolve(
      model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] } as never),
    ).catch(() => undefined);
    return urls;
  }

  it('sends openai:* and anthropic:* requests to the configured base URLs', async () => {
    const config = {
      ...noKeys,
      openaiApiKey: 'sk-test-000000',
      openaiBaseUrl: 'http://127.0.0.1:4010/v1',
      anthropicApiKey: 'sk-ant-test-000000',
      anthropicBaseUrl: 'http://127.0.0.1:4020/v1',
    };
    expect(await requestedUrl({ model: 'openai:gpt-4o-mini', config })).toEqual(['http://127.0.0.1:4010/v1/responses']);
    expect(await requestedUrl({ model: 'anthropic:claude-sonnet-4-5', config })).toEqual([
      'http://127.0.0.1:4020/v1/messages',
    ]);
  });

  it('keeps the SDK defaults when no base URL is set', async () => {
    const config = { ...noKeys, openaiApiKey: 'sk-test-000000', anthropicApiKey: 'sk-ant-test-000000' };
    expect(await requestedUrl({ model: 'openai:gpt-4o-mini', config })).toEqual([
      'https://api.openai.com/v1/responses',
    ]);
    expect(await requestedUrl({ model: 'anthropic:claude-sonnet-4-5', config })).toEqual([
      'https://api.anthropic.com/v1/messages',
    ]);
  });
});

describe('contextWindowOf', () => {
  it('prefers the spec, then the longest known prefix, then the fallback', () => {
    expect(contextWindowOf({ modelId: 'openai:gpt-4o', contextWindow: 1_000 })).toBe(1_000);
    expect(contextWindowOf({ modelId: 'openai:gpt-4.1-mini' })).toBe(1_047_576);
    expect(contextWindowOf({ modelId: 'openai-compatible:whatever' })).toBe(FALLBACK_CONTEXT_WINDOW);
  });
});
