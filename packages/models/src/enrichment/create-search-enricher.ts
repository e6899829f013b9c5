import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AgentqError, type Config } from '@agentq/shared';
import { createToolEnricher, type ToolEnricher } from '@agentq/registry';
import type { LanguageModel } from 'ai';
import { guardedProviderFetch, type ProviderFetchConfig } from '../guarded-provider-fetch.js';

/** The settings {@link createSearchEnricher} reads. */
export type SearchEnricherConfig = Pick<
  Config,
  | 'searchEnrichModel'
  | 'searchEnrichExamples'
  | 'openaiApiKey'
  | 'openaiBaseUrl'
  | 'openaiCompatibleBaseUrl'
  | 'openaiCompatibleApiKey'
  | 'anthropicApiKey'
  | 'anthropicBaseUrl'
> &
  ProviderFetchConfig;

/** Options of {@link createSearchEnricher}. */
export interface CreateSearchEnricherOptions {
  /**
   * Passed to the provider, for tests and proxies.
   * @default a guarded fetch ({@link guardedProviderFetch}): the model's base URL allowed even when
   * private, every other address and redirect hop checked, the key never sent to another origin
   */
  fetch?: typeof globalThis.fetch;
}

function configError(message: string): AgentqError {
  return new AgentqError({ code: 'SEARCH_ENRICH_CONFIG_INVALID', message });
}

function modelOf(config: SearchEnricherConfig, options: CreateSearchEnricherOptions): LanguageModel {
  const spec = config.searchEnrichModel as string;
  const separator = spec.indexOf(':');
  const provider = spec.slice(0, separator);
  const model = spec.slice(separator + 1);
  const fetchFor = (baseURL: string | undefined, apiKey: string | undefined) =>
    options.fetch ??
    guardedProviderFetch(config, { baseURL, apiKey, label: 'search enrichment model' }, () =>
      configError(`the base URL of AGENTQ_SEARCH_ENRICH_MODEL (${provider}) is not a valid URL`),
    );
  if (provider === 'openai') {
    if (!config.openaiApiKey) {
      throw configError('AGENTQ_SEARCH_ENRICH_MODEL names openai:*, but OPENAI_API_KEY is not set');
    }
    return createOpenAI({
      apiKey: config.openaiApiKey,
      baseURL: config.openaiBaseUrl,
      fetch: fetchFor(config.openaiBaseUrl, config.openaiApiKey),
    })(model);
  }
  if (provider === 'openai-compatible') {
    if (!config.openaiCompatibleBaseUrl) {
      throw configError(
        'AGENTQ_SEARCH_ENRICH_MODEL names openai-compatible:*, but OPENAI_COMPATIBLE_BASE_URL is not set',
      );
    }
    return createOpenAICompatible({
      name: 'openai-compatible',
      baseURL: config.openaiCompatibleBaseUrl,
      apiKey: config.openaiCompatibleApiKey,
      fetch: fetchFor(config.openaiCompatibleBaseUrl, config.openaiCompatibleApiKey),
      supportsStructuredOutputs: true,
    }).chatModel(model);
  }
  if (provider === 'anthropic') {
    // The key and base URL of run models (`ANTHROPIC_API_KEY`, `AGENTQ_ANTHROPIC_BASE_URL`): one
    // secret, redacted from logs like every secret setting, never a second copy for the warmers.
    if (!config.anthropicApiKey) {
      throw configError('AGENTQ_SEARCH_ENRICH_MODEL names anthropic:*, but ANTHROPIC_API_KEY is not set');
    }
    return createAnthropic({
      apiKey: config.anthropicApiKey,
      ...(config.anthropicBaseUrl === undefined ? {} : { baseURL: config.anthropicBaseUrl }),
      fetch: fetchFor(config.anthropicBaseUrl, config.anthropicApiKey),
    })(model);
  }
  throw configError(`AGENTQ_SEARCH_ENRICH_MODEL has an unknown provider "${provider}"`);
}

/**
 * The enricher of `AGENTQ_SEARCH_ENRICH_MODEL`, or `null` when none is configured (the default):
 * tool search then has no `examples` field, and nothing else changes. A configured model whose key
 * or base URL is missing throws `SEARCH_ENRICH_CONFIG_INVALID` at start-up.
 *
 * Only warmers call it: what they send is each new tool's name, title, description and input
 * schema, once per tool text; runs never wait on it.
 */
export function createSearchEnricher(
  config: SearchEnricherConfig,
  options: CreateSearchEnricherOptions = {},
): ToolEnricher | null {
  if (!config.searchEnrichModel) return null;
  return createToolEnricher({
    model: modelOf(config, options),
    modelId: config.searchEnrichModel,
    examples: config.searchEnrichExamples,
  });
}
