import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AgentqError, capResponseBody, type Config } from '@agentq/shared';
import type { Embedder } from '@agentq/registry';
import { embedMany, type EmbeddingModel } from 'ai';
import { guardedProviderFetch } from '../guarded-provider-fetch.js';

/** The settings {@link createEmbedder} reads. */
export type EmbedderConfig = Pick<
  Config,
  'embeddingModel' | 'embeddingBaseUrl' | 'openaiApiKey' | 'openaiCompatibleBaseUrl' | 'openaiCompatibleApiKey'
> &
  Partial<Pick<Config, 'allowPrivateFetch' | 'fetchAllowHosts' | 'embeddingMaxBytes' | 'errorBodyMaxBytes'>>;

/** Options of {@link createEmbedder}. */
export interface CreateEmbedderOptions {
  /**
   * Passed to the provider, for tests and proxies; its answers are still capped.
   * @default a `createGuardedFetch`: the embedding server's own host and port are allowed even
   * when private, everything else (redirects included) is checked, and the key never follows a
   * redirect to another origin
   */
  fetch?: typeof globalThis.fetch;
  /** Retries of one embedding call on a transient failure. @default 1 */
  maxRetries?: number;
}

function configError(message: string): AgentqError {
  return new AgentqError({ code: 'EMBEDDING_CONFIG_INVALID', message });
}

/** Code of an embedding answer over `AGENTQ_EMBEDDING_MAX_BYTES`. */
const tooLargeCode = 'EMBEDDING_TOO_LARGE';

/**
 * The fetch the provider uses: guarded (or the caller's), with every answer capped. A good answer
 * over `AGENTQ_EMBEDDING_MAX_BYTES` fails its read with `EMBEDDING_TOO_LARGE`; an error answer is
 * cut at `AGENTQ_ERROR_BODY_MAX_BYTES`.
 */
function embeddingFetch(
  config: EmbedderConfig,
  options: CreateEmbedderOptions,
  target: { baseURL: string | undefined; apiKey: string | undefined },
): typeof globalThis.fetch {
  const base =
    options.fetch ??
    guardedProviderFetch(config, { ...target, label: 'embedding server' }, () =>
      configError('the embedding base URL is not a valid URL'),
    );
  const maxBytes = config.embeddingMaxBytes ?? 134_217_728;
  const errorBodyMaxBytes = config.errorBodyMaxBytes ?? 8192;
  const tooLarge = () =>
    new AgentqError({
      code: tooLargeCode,
      message: `the embedding server answered more than ${maxBytes} bytes (AGENTQ_EMBEDDING_MAX_BYTES)`,
    });
  return async (input, init) => {
    const response = await base(input, init);
    return response.ok
      ? capResponseBody(response, { maxBytes, onTooLarge: tooLarge })
      : capResponseBody(response, { maxBytes: errorBodyMaxBytes, onTooLarge: 'truncate' });
  };
}

/** The cap error inside what the AI SDK threw (it wraps a failed read, and retries wrap again). */
function capErrorIn(error: unknown, depth = 0): AgentqError | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  if (AgentqError.isInstance(error) && error.code === tooLargeCode) return error;
  const { cause, lastError, errors } = error as { cause?: unknown; lastError?: unknown; errors?: unknown };
  for (const inner of [cause, lastError, ...(Array.isArray(errors) ? errors : [])]) {
    const found = capErrorIn(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
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
      fetch: embeddingFetch(config, options, {
        // Without a base URL the provider reads OPENAI_BASE_URL itself: allow where it will go.
        baseURL: config.embeddingBaseUrl ?? (process.env.OPENAI_BASE_URL || undefined),
        apiKey: config.openaiApiKey,
      }),
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
      fetch: embeddingFetch(config, options, { baseURL, apiKey: config.openaiCompatibleApiKey }),
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
      try {
        const { embeddings } = await embedMany({
          model,
          values: [...texts],
          abortSignal: signal,
          maxRetries: options.maxRetries ?? 1,
        });
        return embeddings;
      } catch (error) {
        throw capErrorIn(error) ?? error;
      }
    },
  };
}
