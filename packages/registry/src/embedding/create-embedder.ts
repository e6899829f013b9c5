import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AgentqError, type Config } from '@agentq/shared';
import { embedMany, type EmbeddingModel } from 'ai';

/** Turns texts into vectors with one embedding model. */
export interface Embedder {
  /** The configured model, `provider:model`; part of every stored vector's key. */
  readonly modelId: string;
  /** One vector per text, in order. Throws when the model cannot be reached. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

/** The settings {@link createEmbedder} reads. */
export type EmbedderConfig = Pick<
  Config,
  'embeddingModel' | 'embeddingBaseUrl' | 'openaiApiKey' | 'openaiCompatibleBaseUrl' | 'openaiCompatibleApiKey'
>;

/** Options of {@link createEmbedder}. */
export interface CreateEmbedderOptions {
  /** Passed to the provider, for tests and proxies. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** Retries of one embedding call on a transient failure. @default 1 */
  maxRetries?: number;
}

function configError(message: string): AgentqError {
  return new AgentqError({ code: 'EMBEDDING_CONFIG_INVALID', message });
}

function modelOf(config: EmbedderConfig, options: CreateEmbedderOptions): EmbeddingModel {
  const spec = config.embeddingModel as string;
  const separator = spec.indexOf(':');
  const provider = spec.slice(0, separator);
  const model = spec.slice(separator + 1);
  if (provider === 'openai') {
    if (!config.openaiApiKey) throw configError('AGENTQ_EMBEDDING_MODEL names openai:*, but OPENAI_API_KEY is not set');
    return createOpenAI({
      apiKey: config.openaiApiKey,
      baseURL: config.embeddingBaseUrl,
      fetch: options.fetch,
    }).embeddingModel(model);
  }
  if (provider === 'openai-compatible') {
    const baseURL = config.embeddingBaseUrl ?? config.openaiCompatibleBaseUrl;
    if (!baseURL) {
      throw configError(
        'AGENTQ_EMBEDDING_MODEL names openai-compatible:*, but neither AGENTQ_EMBEDDING_BASE_URL nor OPENAI_COMPATIBLE_BASE_URL is set',
      );
    }
    return createOpenAICompatible({
      name: 'openai-compatible',
      baseURL,
      apiKey: config.openaiCompatibleApiKey,
      fetch: options.fetch,
    }).embeddingModel(model);
  }
  throw configError(`AGENTQ_EMBEDDING_MODEL has an unknown provider "${provider}"`);
}

/**
 * The embedder of `AGENTQ_EMBEDDING_MODEL`, or `null` when none is configured: search then stays
 * lexical, and nothing else changes. A configured model whose key or base URL is missing throws
 * `EMBEDDING_CONFIG_INVALID` at start-up rather than failing every search later.
 *
 * Warmers embed tool texts with it, workers embed `tool_search` queries; both build it from the
 * same config, so their vectors share a model and a key.
 */
export function createEmbedder(config: EmbedderConfig, options: CreateEmbedderOptions = {}): Embedder | null {
  if (!config.embeddingModel) return null;
  const model = modelOf(config, options);
  return {
    modelId: config.embeddingModel,
    async embed(texts, signal) {
      if (texts.length === 0) return [];
      const { embeddings } = await embedMany({
        model,
        values: [...texts],
        abortSignal: signal,
        maxRetries: options.maxRetries ?? 1,
      });
      return embeddings;
    },
  };
}
