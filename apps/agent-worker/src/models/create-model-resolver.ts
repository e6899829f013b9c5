import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3, ProviderV3 } from '@ai-sdk/provider';
import { isModelProvider, MODEL_PROVIDERS, NonRetryableError, type Assistant, type Config } from '@agentq/shared';
import { createProviderRegistry, customProvider } from 'ai';
import { demoFinalText, demoScript } from './demo-script.js';
import { createModelFetch, type ModelFetch } from './create-model-fetch.js';
import { contextWindowOf } from './known-models.js';
import { createScriptedModel } from './scripted-model.js';

/** A model ready for `generateText`, with the context window deferral is sized against. */
export interface ResolvedModel {
  model: LanguageModelV3;
  /** `provider:model` as given in the spec. */
  modelId: string;
  contextWindow: number;
}

/** Turns a run's `assistant.model` into a model. */
export interface ModelResolver {
  /**
   * Throws a `NonRetryableError` (`MODEL_INVALID`, `PROVIDER_UNKNOWN` or `PROVIDER_KEY_MISSING`)
   * when the model cannot be used, so that the run fails at once instead of retrying.
   */
  resolve(assistant: Pick<Assistant, 'model' | 'script' | 'contextWindow'>): ResolvedModel;
}

/** Options of {@link createModelResolver}. */
export interface ModelResolverOptions {
  /** Provider keys and base URLs. */
  config: Pick<
    Config,
    | 'openaiApiKey'
    | 'openaiBaseUrl'
    | 'anthropicApiKey'
    | 'anthropicBaseUrl'
    | 'openaiCompatibleBaseUrl'
    | 'openaiCompatibleApiKey'
  > &
    Partial<Pick<Config, 'maxModelResponseBytes'>>;
  /**
   * The HTTP transport of the real providers.
   * @default a keep-alive `node:http(s)` transport ({@link createModelFetch})
   */
  fetch?: ModelFetch;
}

/**
 * Resolves `provider:model` strings through the AI SDK provider registry: `openai:*`
 * (`OPENAI_API_KEY`, optional `AGENTQ_OPENAI_BASE_URL`), `anthropic:*` (`ANTHROPIC_API_KEY`,
 * optional `AGENTQ_ANTHROPIC_BASE_URL`), `openai-compatible:*`
 * (`OPENAI_COMPATIBLE_BASE_URL`, optional `OPENAI_COMPATIBLE_API_KEY`: Ollama, vLLM, llama.cpp)
 * and `scripted:*`, the built-in deterministic test double that plays `assistant.script`
 * (`scripted:demo` has a built-in script).
 */
export function createModelResolver(options: ModelResolverOptions): ModelResolver {
  const { config } = options;
  const fetch = options.fetch ?? createModelFetch({ maxResponseBytes: config.maxModelResponseBytes });
  // Real providers are built once per process; only the scripted one depends on the run.
  const realProviders: Record<string, ProviderV3> = {};
  if (config.openaiApiKey) {
    realProviders.openai = createOpenAI({
      fetch,
      apiKey: config.openaiApiKey,
      ...(config.openaiBaseUrl === undefined ? {} : { baseURL: config.openaiBaseUrl }),
    });
  }
  if (config.anthropicApiKey) {
    realProviders.anthropic = createAnthropic({
      fetch,
      apiKey: config.anthropicApiKey,
      ...(config.anthropicBaseUrl === undefined ? {} : { baseURL: config.anthropicBaseUrl }),
    });
  }
  if (config.openaiCompatibleBaseUrl) {
    realProviders['openai-compatible'] = createOpenAICompatible({
      name: 'openai-compatible',
      fetch,
      baseURL: config.openaiCompatibleBaseUrl,
      apiKey: config.openaiCompatibleApiKey,
    }) as unknown as ProviderV3;
  }
  // Models of the real providers are shared by every run that names them: a provider's model
  // object is stateless between calls, and building one per run costs the run its own response
  // schemas (a hundred zod objects for an OpenAI-compatible model) for as long as it is in flight.
  const realRegistry = createProviderRegistry(realProviders);
  const realModels = new Map<string, LanguageModelV3>();
  const realModelOf = (modelId: `${string}:${string}`): LanguageModelV3 => {
    let model = realModels.get(modelId);
    if (!model) {
      // Bounded: model ids come from run specs; past the bound start over rather than grow.
      if (realModels.size >= 256) realModels.clear();
      model = realRegistry.languageModel(modelId);
      realModels.set(modelId, model);
    }
    return model;
  };
  const missing: Record<string, string> = {
    openai: 'OPENAI_API_KEY is not set, so openai:* models cannot be used',
    anthropic: 'ANTHROPIC_API_KEY is not set, so anthropic:* models cannot be used',
    'openai-compatible': 'OPENAI_COMPATIBLE_BASE_URL is not set, so openai-compatible:* models cannot be used',
  };

  return {
    resolve(assistant) {
      const at = assistant.model.indexOf(':');
      const provider = at > 0 ? assistant.model.slice(0, at) : '';
      const name = at > 0 ? assistant.model.slice(at + 1) : '';
      if (!provider || !name) {
        throw new NonRetryableError({
          code: 'MODEL_INVALID',
          field: 'assistant.model',
          message: `Model "${assistant.model}" must look like provider:model`,
        });
      }
      // The run spec schema refuses these at enqueue; a job written before that, or by hand, ends here.
      if (!isModelProvider(provider)) {
        throw new NonRetryableError({
          code: 'PROVIDER_UNKNOWN',
          field: 'assistant.model',
          message: `Unknown model provider "${provider}" in "${assistant.model}"; use one of ${MODEL_PROVIDERS.join(', ')}`,
        });
      }
      let model: LanguageModelV3;
      if (provider === 'scripted') {
        const script = assistant.script ?? (name === 'demo' ? demoScript : undefined);
        if (!script) {
          throw new NonRetryableError({
            code: 'VALIDATION',
            field: 'assistant.script',
            message: `Model ${assistant.model} needs assistant.script (only scripted:demo has a built-in one)`,
          });
        }
        const finalText = name === 'demo' && !assistant.script ? demoFinalText : undefined;
        const scripted = customProvider({
          languageModels: { [name]: createScriptedModel({ modelId: name, script, finalText }) },
        });
        model = createProviderRegistry({ scripted }).languageModel(`scripted:${name}`);
      } else if (!realProviders[provider]) {
        throw new NonRetryableError({
          code: 'PROVIDER_KEY_MISSING',
          field: 'assistant.model',
          message: `Cannot run ${assistant.model}: ${missing[provider] ?? 'provider not configured'}`,
        });
      } else {
        model = realModelOf(assistant.model as `${string}:${string}`);
      }
      return {
        model,
        modelId: assistant.model,
        contextWindow: contextWindowOf({ modelId: assistant.model, contextWindow: assistant.contextWindow }),
      };
    },
  };
}
