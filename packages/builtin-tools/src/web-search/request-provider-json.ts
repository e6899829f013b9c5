import {
  AgentqError,
  maskSecretValues,
  readCappedBody,
  type GuardedFetch,
  type GuardedRequestInit,
  type WebSearchProviderName,
} from '@agentq/shared';
import type { z } from 'zod';
import { describeNetworkError } from '../errors/describe-network-error.js';
import { WEB_SEARCH_ERROR_CODES } from './web-search-provider.js';

/** Options of {@link requestProviderJson}. */
export interface RequestProviderJsonOptions<T extends z.ZodType> {
  provider: WebSearchProviderName;
  fetch: GuardedFetch;
  url: URL;
  /** The request; its `secrets` are the provider's resolved keys, for the guard's redirect rules. */
  init: GuardedRequestInit;
  /** Shape of a good answer; anything else is a failure naming the provider. */
  schema: T;
  /** Values to mask in every message: the provider's resolved keys. */
  secretValues: readonly string[];
  /** What is read of the provider's answers. */
  limits: ProviderResponseLimits;
}

/** How much of a provider's answers is read. */
export interface ProviderResponseLimits {
  /** Largest good answer, in bytes (`AGENTQ_WEB_SEARCH_MAX_BYTES`); a bigger one fails the call. */
  maxBytes: number;
  /** Most bytes read of an error answer (`AGENTQ_ERROR_BODY_MAX_BYTES`); the rest is left unread. */
  errorBodyMaxBytes: number;
}

const decoder = new TextDecoder();

/** Longest piece of a provider's error body quoted back to the model. */
const errorBodyChars = 300;

/**
 * One call to a search provider's JSON API, through the guarded fetch. Every failure becomes a
 * `WEB_SEARCH_FAILED` error that names the provider and has the provider's keys masked: it goes
 * back to the model as a tool error, and a provider that echoes the request (a bad key, say)
 * must not leak it there. Aborts are rethrown as they are, for the caller to tell a timeout.
 */
export async function requestProviderJson<T extends z.ZodType>(
  options: RequestProviderJsonOptions<T>,
): Promise<z.output<T>> {
  const fail = (reason: string): AgentqError =>
    new AgentqError({
      code: WEB_SEARCH_ERROR_CODES.failed,
      message: maskSecretValues(`web_search provider ${options.provider} failed: ${reason}`, options.secretValues),
    });
  let response: Response;
  try {
    response = await options.fetch(options.url, options.init);
  } catch (error) {
    if (options.init.signal?.aborted) throw error;
    if (AgentqError.isInstance(error)) throw fail(`${error.code}: ${error.message}`);
    throw fail(describeNetworkError(error));
  }
  const { maxBytes, errorBodyMaxBytes } = options.limits;
  if (!response.ok) {
    const bytes = await readCappedBody(response, { maxBytes: errorBodyMaxBytes, onTooLarge: 'truncate' }).catch(
      () => new Uint8Array(),
    );
    const quoted = decoder.decode(bytes).trim().replace(/\s+/g, ' ').slice(0, errorBodyChars);
    throw fail(`HTTP ${response.status}${quoted === '' ? '' : `: ${quoted}`}`);
  }
  const tooLarge = () => fail(`the answer is larger than ${maxBytes} bytes (AGENTQ_WEB_SEARCH_MAX_BYTES)`);
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(await readCappedBody(response, { maxBytes, onTooLarge: tooLarge })));
  } catch (error) {
    if (options.init.signal?.aborted || AgentqError.isInstance(error)) throw error;
    throw fail('the answer is not JSON');
  }
  const parsed = options.schema.safeParse(json);
  if (!parsed.success) throw fail('the answer does not have the expected shape');
  return parsed.data;
}
