import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciRequestInit } from 'undici';
import { resolveFetchTarget, type CheckFetchTargetOptions } from './check-fetch-target.js';
import { assertSecretHosts, dropSecretHeaders, type EgressSecret } from './egress-secret.js';

/** Options of {@link createGuardedFetch}. */
export interface GuardedFetchOptions extends CheckFetchTargetOptions {
  /** Redirects followed for a request with `redirect: 'follow'` (the default); each hop is checked again. @default 5 */
  maxRedirects?: number;
  /** Time to open a connection (TCP and TLS) before the request fails. @default 10000 */
  connectTimeoutMs?: number;
  /**
   * Secrets every request of this fetch may carry (an MCP server's resolved header values). A
   * cross-origin redirect drops every header that carries one, and a bound secret never goes to a
   * host outside its binding. Per-request secrets go in the init's `secrets`. @default []
   */
  secrets?: readonly EgressSecret[];
}

/** A `RequestInit` that also names the secrets this one request carries (a search provider's key). */
export interface GuardedRequestInit extends RequestInit {
  /** Added to the fetch's own `secrets` for this request. @default [] */
  secrets?: readonly EgressSecret[];
}

/**
 * A `fetch` that only reaches checked addresses. Its signature is the global `fetch`'s, so it fits
 * wherever a `fetch` is taken: the MCP SDK's `StreamableHTTPClientTransport` and
 * `SSEClientTransport` (option `fetch`, which the SSE transport also hands to its EventSource).
 */
export type GuardedFetch = (input: string | URL | Request, init?: GuardedRequestInit) => Promise<Response>;

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);
// Dropped when a redirect leaves the origin (as the fetch standard does for Authorization): a
// server must not be able to forward a request's credentials to a host of its choosing.
const credentialHeaders = ['authorization', 'proxy-authorization', 'cookie'];
const bodyHeaders = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

type Pin = Array<{ address: string; family: 4 | 6 }>;
type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function fetchFailed(reason: string): TypeError {
  // What the global fetch throws for a network-level failure, so callers treat both alike.
  return new TypeError('fetch failed', { cause: new Error(reason) });
}

function isReplayableBody(body: unknown): boolean {
  return (
    body === undefined ||
    body === null ||
    typeof body === 'string' ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof URLSearchParams ||
    body instanceof Blob ||
    body instanceof FormData
  );
}

// The undici `fetch` answers with undici's own Response class; callers (the MCP SDK among them)
// check `instanceof Response` against the global one, so the answer is rewrapped without copying
// the body stream.
function toGlobalResponse(response: Awaited<ReturnType<typeof undiciFetch>>): Response {
  const body = nullBodyStatuses.has(response.status) ? null : (response.body as ReadableStream<Uint8Array> | null);
  const wrapped = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers as unknown as Headers,
  });
  Object.defineProperty(wrapped, 'url', { value: response.url, enumerable: true });
  return wrapped;
}

/**
 * Creates a `fetch` that refuses private, loopback and reserved targets (the same check as
 * `checkFetchTarget`, with the same options and error codes `INVALID_URL` / `PRIVATE_ADDRESS`) and
 * then connects only to the addresses it checked: the host is resolved once per request, every
 * address it resolves to is checked, and the connection's own lookup answers with those checked
 * addresses instead of asking DNS again, so a DNS answer that changes between check and connect
 * (DNS rebinding) cannot move the connection. TLS server name and the `Host` header still use the
 * host name. An IP literal or `localhost` is never sent to the resolver.
 *
 * Redirects: with `redirect: 'follow'` (the default) redirects are followed here, at most
 * `maxRedirects`, and every hop is checked and pinned again. When a hop leaves the origin, the
 * credential headers (`Authorization`, `Proxy-Authorization`, `Cookie`) and every header that carries
 * one of the request's secrets (option and init `secrets`, whatever the header's name) are dropped:
 * the next host gets the request without them. Before every hop, the first included, a secret
 * bound by `AGENTQ_SECRET_HOSTS` that the hop would still carry (in a header or the URL) to a host
 * outside its binding refuses the hop with `SECRET_HOST_MISMATCH`. With `redirect: 'manual'` the 3xx response is
 * returned as is, so a caller that follows it calls this fetch again and is checked again (the MCP
 * SDK's transports do that); `redirect: 'error'` fails on any redirect.
 *
 * Connections are pooled per origin and closed after undici's keep-alive timeout when idle.
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const maxRedirects = options.maxRedirects ?? 5;
  // Host name → the addresses last checked for it. Only checked addresses are ever stored, so any
  // connection, pooled or new, goes to an address that passed the check for that host. All of them
  // are kept so Node's happy-eyeballs can still fall back from an unreachable IPv6 to IPv4.
  const pins = new Map<string, Pin>();
  const agent = new Agent({
    connect: {
      timeout: options.connectTimeoutMs ?? 10_000,
      lookup: (hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
        const pin = pins.get(hostname);
        const first = pin?.[0];
        if (!pin || !first) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} was not checked before connecting`);
          error.code = 'ENOTFOUND';
          callback(error, '');
          return;
        }
        if (lookupOptions.all) callback(null, pin);
        else callback(null, first.address, first.family);
      },
    },
  });

  async function fetchOnce(url: URL, init: RequestInit): Promise<Response> {
    const target = await resolveFetchTarget(url, { ...options, resolve: 'always' });
    if (target.addresses.length === 0) throw fetchFailed(`${url.hostname} did not resolve to any address`);
    pins.set(target.url.hostname, target.addresses);
    const response = await undiciFetch(target.url, {
      ...(init as UndiciRequestInit),
      redirect: 'manual',
      dispatcher: agent,
    });
    return toGlobalResponse(response);
  }

  return async function guardedFetch(input, guardedInit) {
    const { secrets: requestSecrets, ...init } = guardedInit ?? {};
    const secrets = [...(options.secrets ?? []), ...(requestSecrets ?? [])];
    let requestInit: RequestInit = { ...init };
    let url: URL;
    if (typeof input === 'string' || input instanceof URL) {
      url = new URL(input);
    } else {
      url = new URL(input.url);
      requestInit = {
        method: input.method,
        headers: input.headers,
        body: input.body,
        signal: input.signal,
        redirect: input.redirect,
        ...init,
      };
      if (requestInit.body) (requestInit as RequestInit & { duplex: 'half' }).duplex = 'half';
    }
    const mode = requestInit.redirect ?? 'follow';
    requestInit = { ...requestInit, headers: new Headers(requestInit.headers) };

    for (let hop = 0; ; hop += 1) {
      assertSecretHosts({ url, headers: requestInit.headers as Headers, secrets, label: options.label });
      const response = await fetchOnce(url, requestInit);
      const location = redirectStatuses.has(response.status) ? response.headers.get('location') : null;
      if (mode === 'manual' || location === null) return response;
      await response.body?.cancel();
      if (mode === 'error') throw fetchFailed('unexpected redirect');
      if (hop >= maxRedirects) throw fetchFailed(`more than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw fetchFailed('redirect to an invalid URL');
      }

      const headers = new Headers(requestInit.headers);
      const method = (requestInit.method ?? 'GET').toUpperCase();
      const toGet =
        response.status === 303
          ? method !== 'HEAD'
          : (response.status === 301 || response.status === 302) && method === 'POST';
      if (toGet) {
        for (const name of bodyHeaders) headers.delete(name);
        requestInit = { ...requestInit, method: method === 'HEAD' ? 'HEAD' : 'GET', body: null };
      } else if (!isReplayableBody(requestInit.body)) {
        throw fetchFailed('cannot follow a redirect with a streamed body');
      }
      if (next.origin !== url.origin) {
        for (const name of credentialHeaders) headers.delete(name);
        dropSecretHeaders(headers, secrets);
      }
      requestInit = { ...requestInit, headers };
      url = next;
    }
  };
}
