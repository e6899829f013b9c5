import {
  AgentqError,
  maskSecretValues,
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
}

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
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    const quoted = body.trim().replace(/\s+/g, ' ').slice(0, errorBodyChars);
    throw fail(`HTTP ${response.status}${quoted === '' ? '' : `: ${quoted}`}`);
  }
  let json: unknown;
  try {
    json = await response.json();
  } catch (error) {
    if (options.init.signal?.aborted) throw error;
    throw fail('the answer is not JSON');
  }
  const parsed = options.schema.safeParse(json);
  if (!parsed.success) throw fail('the answer does not have the expected shape');
  return parsed.data;
}
