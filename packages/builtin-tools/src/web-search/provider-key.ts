import { AgentqError, resolveSecretSetting, type EgressSecret, type WebSearchProviderName } from '@agentq/shared';
import { WEB_SEARCH_ERROR_CODES } from './web-search-provider.js';

/** A provider's key: a `${NAME}` setting resolved when a call needs it. */
export interface ProviderKey {
  /** Whether the variables the setting names are set (the provider counts as configured). */
  isSet(): boolean;
  /**
   * The key, the secret values in it (for masking) and the same values with their host bindings
   * (for the fetch guard). Throws a `WEB_SEARCH_UNAVAILABLE` error naming the provider.
   */
  resolve(): { value: string; secretValues: string[]; egressSecrets: EgressSecret[] };
}

/** Options of {@link createProviderKey}. */
export interface ProviderKeyOptions {
  provider: WebSearchProviderName;
  /** The setting as configured, e.g. `${AGENTQ_SECRET_BRAVE_API_KEY}`. */
  placeholder: string;
  /** The setting's variable, e.g. `AGENTQ_BRAVE_API_KEY`. */
  setting: string;
  /** Where the key is sent; a secret bound to other hosts is refused. */
  url: string;
  env: Record<string, string | undefined>;
}

/**
 * A provider key resolved like a server definition's secrets (`resolveSecretSetting`): only
 * allowed names, only to bound hosts. Resolved at each call, never kept, so a rotated key is used
 * at once and no copy lives longer than the request.
 */
export function createProviderKey(options: ProviderKeyOptions): ProviderKey {
  const host = new URL(options.url).hostname;
  const resolve = () => {
    try {
      return resolveSecretSetting({
        value: options.placeholder,
        setting: options.setting,
        subject: `web_search provider ${options.provider}`,
        host,
        env: options.env,
      });
    } catch (error) {
      if (!AgentqError.isInstance(error)) throw error;
      throw new AgentqError({ code: WEB_SEARCH_ERROR_CODES.unavailable, message: error.message, field: error.field });
    }
  };
  return {
    isSet() {
      try {
        resolve();
        return true;
      } catch {
        return false;
      }
    },
    resolve,
  };
}
