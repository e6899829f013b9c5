import { assertSecretHosts, dropSecretHeaders, type EgressSecret } from '@agentq/shared';

/** Options of {@link withOAuthEgress}. */
export interface OAuthEgressOptions {
  /** The guarded fetch every request goes through. */
  fetch: typeof globalThis.fetch;
  /** The MCP server's URL: its origin is the only one the definition's header secrets go to. */
  serverUrl: string;
  /** The definition's header and URL secrets. */
  headerSecrets: readonly EgressSecret[];
  /** The OAuth client id and secret, with the secret's host binding. */
  client: { id?: string; secret?: EgressSecret };
  label: string;
}

/**
 * Wraps the fetch the MCP SDK uses for a server with OAuth, transport and authorization requests
 * alike (the SDK sends its discovery, registration and token requests through the transport's
 * `fetch`, merged with the definition's static headers):
 * - a request to another origin than the MCP server's (the authorization server) loses every
 *   header that carries one of the definition's header secrets;
 * - a request that carries the client secret (in its body, or as HTTP Basic credentials) to a host
 *   outside the secret's `AGENTQ_SECRET_HOSTS` binding is refused with `SECRET_HOST_MISMATCH`.
 */
export function withOAuthEgress(options: OAuthEgressOptions): typeof globalThis.fetch {
  const origin = new URL(options.serverUrl).origin;
  const secret = options.client.secret;
  const forms: EgressSecret[] =
    secret === undefined
      ? []
      : [
          secret,
          { ...secret, value: encodeURIComponent(secret.value) },
          { ...secret, value: new URLSearchParams({ s: secret.value }).toString().slice(2) },
          { ...secret, value: btoa(`${options.client.id ?? ''}:${secret.value}`) },
        ];
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (url.origin !== origin) dropSecretHeaders(headers, options.headerSecrets);
    if (forms.length > 0) {
      const carried = new Headers(headers);
      const body = init?.body;
      if (typeof body === 'string' || body instanceof URLSearchParams) carried.set('x-agentq-body', String(body));
      assertSecretHosts({ url, headers: carried, secrets: forms, label: options.label });
    }
    return options.fetch(input, { ...init, headers });
  };
}
