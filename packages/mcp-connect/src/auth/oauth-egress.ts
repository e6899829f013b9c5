import { assertSecretHosts, dropSecretHeaders, readCappedBody, type EgressSecret } from '@agentq/shared';

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
 *   outside the secret's `AGENTQ_SECRET_HOSTS` binding is refused with `SECRET_HOST_MISMATCH`;
 * - a token request's 200 answer that is not a JSON object becomes a 502 `server_error`: the SDK's
 *   JSON parser would quote the start of it (a token, as likely as not) in an error that is logged
 *   and shown.
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
    const response = await options.fetch(input, { ...init, headers });
    return response.ok && isTokenRequest(init, headers) ? await checkedTokenAnswer(response) : response;
  };
}

/** Header of the 502 that stands for a token answer that was not a JSON object: its real status. */
export const SUBSTITUTED_TOKEN_ANSWER = 'x-agentq-substituted-token-answer';

/** Most bytes of a token answer read: a real one is well under a kilobyte or two. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/**
 * Whether a request is an OAuth token request: a POST of a form with a `grant_type` (the SDK sends
 * its `URLSearchParams`; a string body counts only with the form content type). An MCP request is
 * JSON, whatever its text holds, and its answer (an event stream, perhaps) is never read here.
 */
function isTokenRequest(init: RequestInit | undefined, headers: Headers): boolean {
  if (init?.method !== 'POST') return false;
  const body = init.body;
  if (body instanceof URLSearchParams) return body.has('grant_type');
  const form = /^application\/x-www-form-urlencoded\b/i.test(headers.get('content-type') ?? '');
  return form && typeof body === 'string' && new URLSearchParams(body).has('grant_type');
}

/** A token request's successful answer, read once: as it was when it is a JSON object, else a 502. */
async function checkedTokenAnswer(response: Response): Promise<Response> {
  let text: string | undefined;
  try {
    const bytes = await readCappedBody(response, {
      maxBytes: MAX_TOKEN_ANSWER_BYTES,
      onTooLarge: () => new Error('too large'),
    });
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) text = undefined;
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    const headers = new Headers(response.headers);
    // The text is decoded already: no length or encoding of the bytes that came over the wire.
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(text, { status: response.status, statusText: response.statusText, headers });
  }
  return Response.json(
    {
      error: 'server_error',
      error_description: `the token endpoint answered HTTP ${response.status} with a body that is not a JSON object`,
    },
    // Marked as agentq's own, so that a refresh failure names the endpoint's real answer.
    { status: 502, headers: { [SUBSTITUTED_TOKEN_ANSWER]: String(response.status) } },
  );
}
