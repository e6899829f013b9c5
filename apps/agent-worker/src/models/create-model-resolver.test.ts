import { AgentqError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { createModelResolver } from './create-model-resolver.js';
import { contextWindowOf, FALLBACK_CONTEXT_WINDOW } from './known-models.js';

const noKeys = {
  openaiApiKey: undefined,
  anthropicApiKey: undefined,
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
});

describe('contextWindowOf', () => {
  it('prefers the spec, then the longest known prefix, then the fallback', () => {
    expect(contextWindowOf({ modelId: 'openai:gpt-4o', contextWindow: 1_000 })).toBe(1_000);
    expect(contextWindowOf({ modelId: 'openai:gpt-4.1-mini' })).toBe(1_047_576);
    expect(contextWindowOf({ modelId: 'openai-compatible:whatever' })).toBe(FALLBACK_CONTEXT_WINDOW);
  });
});
