import { createGuardedFetch, hostPatternOf, type Config } from '@agentq/shared';

/** The egress settings a provider's guarded fetch reads. */
export type ProviderFetchConfig = Partial<Pick<Config, 'allowPrivateFetch' | 'fetchAllowHosts'>>;

/**
 * The fetch a provider of this package sends through when the caller gave none: a
 * `createGuardedFetch` in which the provider's own base URL host and port are allowed even when
 * private (a local Ollama, a loopback fake), every other address, redirect hops included, is
 * checked like any outgoing request, and the key is bound to the base URL's origin, so a redirect
 * elsewhere never carries it (WHATWG `fetch` forwards headers such as Anthropic's `x-api-key`).
 * Throws `invalidBaseUrl()` for a base URL that does not parse.
 */
export function guardedProviderFetch(
  config: ProviderFetchConfig,
  target: { baseURL: string | undefined; apiKey: string | undefined; label: string },
  invalidBaseUrl: () => Error,
): typeof globalThis.fetch {
  let allowHosts = config.fetchAllowHosts ?? [];
  if (target.baseURL !== undefined) {
    try {
      allowHosts = [...allowHosts, hostPatternOf(target.baseURL)];
    } catch {
      throw invalidBaseUrl();
    }
  }
  return createGuardedFetch({
    allowPrivate: config.allowPrivateFetch ?? false,
    allowHosts,
    secrets: target.apiKey ? [{ value: target.apiKey }] : [],
    label: target.label,
  }) as typeof globalThis.fetch;
}
