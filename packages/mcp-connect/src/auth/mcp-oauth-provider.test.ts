import type { ServerAuth } from '@agentq/shared';
import type { OAuthTokenStore, StoredOAuthState } from '@agentq/store';
import { describe, expect, it, vi } from 'vitest';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthRefusal } from '../errors/auth-refusal.js';
import { McpOAuthProvider, oauthBinding, unionOfScopes, type McpOAuthProviderOptions } from './mcp-oauth-provider.js';

const serverUrl = 'https://mcp.example.com/mcp';
const codeGrant: ServerAuth = { type: 'oauth', grant: 'authorization_code' };
const credentialsGrant: ServerAuth = { type: 'oauth', grant: 'client_credentials', clientId: 'c', clientSecret: 's' };

/**
 * The store's reads, writes and lease over a map: what the provider uses of OAuthTokenStore. The
 * lease is exclusive, as in Redis: a second taker waits for it to go and gets `undefined`.
 */
function memoryStore(initial?: StoredOAuthState, options: { leaseDeadline?: () => AbortSignal } = {}) {
  const states = new Map<string, StoredOAuthState>();
  if (initial) states.set('srv', initial);
  // Like the sealed text in Redis (a fresh nonce per write), every write is a new version, even of
  // the same content: one per stored object.
  const versions = new WeakMap<StoredOAuthState, number>();
  let written = 0;
  const versionOf = (serverId: string) => {
    const state = states.get(serverId);
    if (state === undefined) return '';
    if (!versions.has(state)) versions.set(state, (written += 1));
    return `v${versions.get(state)}`;
  };
  let lease: Promise<unknown> | undefined;
  const store = {
    flowTtlMs: 600_000,
    read: async (serverId: string) => states.get(serverId),
    readVersioned: async (serverId: string) => ({ state: states.get(serverId), version: versionOf(serverId) }),
    write: async (serverId: string, state: StoredOAuthState) => void states.set(serverId, { ...state }),
    writeIfUnchanged: async (serverId: string, version: string, state: StoredOAuthState) => {
      if (versionOf(serverId) !== version) return false;
      states.set(serverId, { ...state });
      return true;
    },
    withRefreshLease: async <T>(_serverId: string, refresh: (deadline: AbortSignal) => Promise<T>) => {
      if (lease) {
        await lease.catch(() => undefined);
        return undefined;
      }
      lease = refresh(options.leaseDeadline?.() ?? new AbortController().signal);
      try {
        return (await lease) as T;
      } finally {
        lease = undefined;
      }
    },
  };
  return { store: store as unknown as OAuthTokenStore, states };
}

function providerOf(
  auth: ServerAuth,
  initial: Omit<StoredOAuthState, 'binding'>,
  interactive = false,
  extra: Partial<McpOAuthProviderOptions> = {},
  leaseDeadline?: () => AbortSignal,
) {
  const { store, states } = memoryStore({ binding: oauthBinding(serverUrl, auth), ...initial }, { leaseDeadline });
  const provider = new McpOAuthProvider({
    serverId: 'srv',
    serverUrl,
    auth,
    store,
    fetch: () => Promise.reject(new Error('no network in this test')),
    clientMetadataUrl: 'https://agentq.example.com/oauth/client-metadata.json',
    ...(interactive
      ? {
          interactive: { redirectUrl: 'http://127.0.0.1:9/cb', state: 'st', onAuthorizationUrl: async () => undefined },
        }
      : {}),
    ...extra,
  });
  return { provider, states };
}

/** A 403 `insufficient_scope` answer asking for `scope`, as `recordAuthRefusals` records it. */
function insufficientScope(scope: string): AuthRefusal {
  return { status: 403, challenge: `Bearer error="insufficient_scope", scope="${scope}"` };
}

describe('unionOfScopes', () => {
  it('joins scope lists without repeats, in first-seen order', () => {
    expect(unionOfScopes('a b', undefined, 'b c', '')).toBe('a b c');
    expect(unionOfScopes(undefined, '')).toBeUndefined();
  });
});

describe('McpOAuthProvider step-up', () => {
  it('records the scopes a headless authorization-code client was refused for, without marking the token rejected', async () => {
    const { provider, states } = providerOf(
      codeGrant,
      { tokens: { access_token: 'at', token_type: 'Bearer', scope: 'mcp:basic', refresh_token: 'rt' } },
      false,
      { refusal: () => insufficientScope('mcp:write') },
    );
    await provider.tokens();
    await expect(
      provider.redirectToAuthorization(new URL('https://as.example.com/authorize?scope=mcp%3Abasic+mcp%3Awrite')),
    ).rejects.toMatchObject({
      code: 'MCP_AUTH_REQUIRED',
      message: expect.stringContaining('more scope (mcp:basic mcp:write): run agentq servers authorize srv'),
    });
    expect(states.get('srv')?.pendingScope).toBe('mcp:basic mcp:write');
    expect(states.get('srv')?.rejected).toBeUndefined();
  });

  it('takes a plain 401 for a refused token, whatever scopes the authorization URL names', async () => {
    // After a 401 the SDK fills the URL's scope from the resource's advertised scopes.
    const { provider, states } = providerOf(
      codeGrant,
      { tokens: { access_token: 'at', token_type: 'Bearer', scope: 'read', refresh_token: 'rt' } },
      false,
      { refusal: () => ({ status: 401, challenge: 'Bearer resource_metadata="https://mcp.example.com/prm"' }) },
    );
    await provider.tokens();
    await provider.redirectToAuthorization(new URL('https://as.example.com/authorize?scope=read+write'));
    expect(states.get('srv')?.rejected).toBe(true);
    expect(states.get('srv')?.pendingScope).toBeUndefined();
  });

  it('records a step-up when the token answer never named its scopes', async () => {
    const { provider, states } = providerOf(
      codeGrant,
      { tokens: { access_token: 'at', token_type: 'Bearer', refresh_token: 'rt' } },
      false,
      { refusal: () => insufficientScope('write') },
    );
    await provider.tokens();
    await expect(
      provider.redirectToAuthorization(new URL('https://as.example.com/authorize?scope=write')),
    ).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED', message: expect.stringContaining('more scope (write)') });
    expect(states.get('srv')?.pendingScope).toBe('write');
    expect(states.get('srv')?.rejected).toBeUndefined();
  });

  it('asks a client credentials token for the challenge’s scopes even when the SDK passes none', async () => {
    const { provider } = providerOf(
      credentialsGrant,
      { tokens: { access_token: 'at', token_type: 'Bearer', scope: 'read' } },
      false,
      { refusal: () => insufficientScope('write') },
    );
    await provider.tokens();
    expect(provider.prepareTokenRequest()?.get('scope')).toBe('read write');
  });

  it('marks a refused token rejected (to refresh it) when no more scope was asked for', async () => {
    const { provider, states } = providerOf(codeGrant, {
      tokens: { access_token: 'at', token_type: 'Bearer', scope: 'mcp:basic', refresh_token: 'rt' },
    });
    await provider.tokens();
    await provider.redirectToAuthorization(new URL('https://as.example.com/authorize?scope=mcp%3Abasic'));
    expect(states.get('srv')?.pendingScope).toBeUndefined();
    expect(states.get('srv')?.rejected).toBe(true);
  });

  it('clears the pending scopes when an operator authorization saves new tokens, and not on a refresh', async () => {
    const initial = {
      tokens: { access_token: 'at', token_type: 'Bearer', scope: 'a' },
      pendingScope: 'a b',
    };
    const headless = providerOf(codeGrant, initial);
    await headless.provider.saveTokens({ access_token: 'at2', token_type: 'Bearer', scope: 'a' });
    expect(headless.states.get('srv')?.pendingScope).toBe('a b');
    const operator = providerOf(codeGrant, initial, true);
    await operator.provider.saveTokens({ access_token: 'at3', token_type: 'Bearer', scope: 'a b' });
    expect(operator.states.get('srv')?.pendingScope).toBeUndefined();
  });

  it('asks a client credentials token for the granted scopes and the challenge’s together', async () => {
    const { provider } = providerOf(credentialsGrant, {
      tokens: { access_token: 'at', token_type: 'Bearer', scope: 'read' },
    });
    await provider.tokens();
    expect(provider.prepareTokenRequest('read write')?.get('scope')).toBe('read write');
    expect(provider.prepareTokenRequest('admin')?.get('scope')).toBe('read admin');
    expect(provider.prepareTokenRequest()?.has('scope')).toBe(false);
  });
});

describe('McpOAuthProvider client ID metadata document', () => {
  it('offers the metadata URL only to an authorization-code server without a pre-registered client', () => {
    expect(providerOf(codeGrant, {}).provider.clientMetadataUrl).toBe(
      'https://agentq.example.com/oauth/client-metadata.json',
    );
    expect(providerOf({ ...codeGrant, clientId: 'registered' }, {}).provider.clientMetadataUrl).toBeUndefined();
    expect(providerOf(credentialsGrant, {}).provider.clientMetadataUrl).toBeUndefined();
  });
});

describe('McpOAuthProvider and the store', () => {
  it('reads the stored tokens before every request: deleted ones are gone, new ones are used at once', async () => {
    const { provider, states } = providerOf(codeGrant, {
      tokens: { access_token: 'at', token_type: 'Bearer', refresh_token: 'rt' },
    });
    expect(await provider.tokens()).toEqual({ access_token: 'at', token_type: 'Bearer' });
    states.delete('srv');
    // A headless authorization-code client with no tokens refuses the request itself.
    await expect(provider.tokens()).rejects.toMatchObject({
      code: 'MCP_AUTH_REQUIRED',
      message: expect.stringContaining('run agentq servers authorize srv'),
    });
    states.set('srv', {
      binding: oauthBinding(serverUrl, codeGrant),
      tokens: { access_token: 'at2', token_type: 'Bearer' },
    });
    expect(await provider.tokens()).toEqual({ access_token: 'at2', token_type: 'Bearer' });
    // Tokens stored for another definition (URL, grant or client) are not this server's.
    states.set('srv', { binding: 'another', tokens: { access_token: 'at3', token_type: 'Bearer' } });
    await expect(provider.tokens()).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
  });

  it('never registers a client from a headless process; an operator’s authorization does', async () => {
    const headless = providerOf(codeGrant, {});
    // Without a saveClientInformation the SDK cannot register; asked for the client, it is refused.
    expect(headless.provider.saveClientInformation).toBeUndefined();
    await expect(headless.provider.clientInformation()).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    const operator = providerOf(codeGrant, {}, true);
    await operator.provider.saveClientInformation?.({ client_id: 'dyn' });
    expect(operator.states.get('srv')?.client).toEqual({ client_id: 'dyn' });
  });

  it('marks refused only the token the server refused, not one refreshed since', async () => {
    let refused: string | undefined = 'old';
    const { provider, states } = providerOf(
      codeGrant,
      { tokens: { access_token: 'new', token_type: 'Bearer', refresh_token: 'rt2' } },
      false,
      { refusedBearer: () => refused },
    );
    await provider.tokens();
    await provider.redirectToAuthorization(new URL('https://as.example.com/authorize'));
    expect(states.get('srv')?.rejected).toBeUndefined();
    refused = 'new';
    await provider.redirectToAuthorization(new URL('https://as.example.com/authorize'));
    expect(states.get('srv')?.rejected).toBe(true);
  });
});

/**
 * An authorization server on a fake fetch: RFC 8414 metadata (with a registration endpoint) and a
 * token endpoint that gives `answer`, after `release` when `hold` is set (so a test can act while
 * the refresh is in flight; a string body goes as it is). Records every request as
 * `METHOD path[:refresh token]`.
 */
function fakeAuthorizationServer(
  options: { hold?: boolean; answer?: { status: number; body: Record<string, unknown> | string } } = {},
) {
  const requests: string[] = [];
  const scopes: Array<string | null> = [];
  let release: () => void = () => undefined;
  const released = options.hold === false ? Promise.resolve() : new Promise<void>((resolve) => (release = resolve));
  let arrived: () => void = () => undefined;
  const refreshArrived = new Promise<void>((resolve) => (arrived = resolve));
  const answer = options.answer ?? {
    status: 200,
    body: { access_token: 'fresh', token_type: 'Bearer', refresh_token: 'rt2', expires_in: 3600 },
  };
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return Response.json({
        issuer: url.origin,
        authorization_endpoint: `${url.origin}/authorize`,
        token_endpoint: `${url.origin}/token`,
        registration_endpoint: `${url.origin}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/token') {
      const params = new URLSearchParams(String(init?.body));
      requests.push(`POST /token:${params.get('refresh_token') ?? ''}`);
      scopes.push(params.get('scope'));
      arrived();
      const signal = init?.signal;
      await Promise.race([
        released,
        new Promise((_resolve, reject) => {
          if (signal?.aborted) reject(signal.reason);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
      ]);
      if (typeof answer.body === 'string') return new Response(answer.body, { status: answer.status });
      return Response.json(answer.body, { status: answer.status });
    }
    requests.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return new Response('not found', { status: 404 });
  }) as typeof globalThis.fetch;
  const refreshes = () => requests.filter((request) => request.startsWith('POST /token:')).map((r) => r.slice(12));
  return { fetch, requests, scopes, refreshes, release, refreshArrived };
}

describe('McpOAuthProvider refresh', () => {
  const expired = { access_token: 'stale', token_type: 'Bearer', refresh_token: 'rt1' };
  const registered: ServerAuth = { ...codeGrant, clientId: 'registered' };

  it('does not bring deleted tokens back when a refresh in flight answers after a deauthorize', async () => {
    const server = fakeAuthorizationServer();
    const { provider, states } = providerOf(registered, { tokens: expired, expiresAt: 0 }, false, {
      fetch: server.fetch,
    });
    const request = provider.tokens();
    await server.refreshArrived;
    states.delete('srv');
    server.release();
    await expect(request).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    expect(server.refreshes()).toEqual(['rt1']);
    expect(states.has('srv')).toBe(false);
  });

  it('keeps a refresh’s rotated tokens when another write over the same tokens lands beside it', async () => {
    const server = fakeAuthorizationServer();
    const { provider, states } = providerOf(registered, { tokens: expired, rejected: true }, false, {
      fetch: server.fetch,
    });
    const request = provider.tokens();
    await server.refreshArrived;
    // Another session wrote beside it, over the same tokens (here a pending scope).
    const stored = states.get('srv')!;
    states.set('srv', { ...stored, pendingScope: 'x' });
    server.release();
    expect((await request)?.access_token).toBe('fresh');
    expect(states.get('srv')?.tokens?.refresh_token).toBe('rt2');
    expect(states.get('srv')?.pendingScope).toBe('x');
  });

  it('spends a refresh token once: the SDK’s own 401 handling beside a refresh never sees it', async () => {
    const server = fakeAuthorizationServer();
    const { provider, states } = providerOf(registered, { tokens: expired, expiresAt: 0 }, false, {
      fetch: server.fetch,
    });
    const refreshing = provider.tokens();
    await server.refreshArrived;
    // A request on the same session was refused meanwhile: the transport runs the SDK's auth().
    const asked = vi.spyOn(provider, 'tokens');
    const beside = auth(provider, { serverUrl, fetchFn: server.fetch }).catch((error: unknown) => error);
    // Let it get as far as asking for the tokens while the refresh is still in flight.
    for (let turn = 0; turn < 1_000 && asked.mock.calls.length === 0; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(asked).toHaveBeenCalled();
    server.release();
    const answered = await refreshing;
    expect(answered?.access_token).toBe('fresh');
    expect(answered).not.toHaveProperty('refresh_token');
    await beside;
    expect(server.refreshes()).toEqual(['rt1']);
    expect(states.get('srv')?.tokens?.refresh_token).toBe('rt2');
  });

  it('sends a refused refresh token once, forgets it, and is then auth-required', async () => {
    const server = fakeAuthorizationServer({
      hold: false,
      answer: { status: 400, body: { error: 'invalid_grant', error_description: 'revoked' } },
    });
    const { provider, states } = providerOf(registered, { tokens: expired, expiresAt: 0 }, false, {
      fetch: server.fetch,
    });
    await expect(provider.tokens()).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    expect(server.refreshes()).toEqual(['rt1']);
    expect(states.get('srv')?.tokens).toBeUndefined();
  });

  it('never registers a client when the authorization server refuses the stored one', async () => {
    const server = fakeAuthorizationServer({
      hold: false,
      answer: { status: 401, body: { error: 'invalid_client' } },
    });
    const { provider, states } = providerOf(
      codeGrant,
      { tokens: expired, expiresAt: 0, client: { client_id: 'dyn', redirect_uris: ['http://127.0.0.1:9/cb'] } },
      false,
      { fetch: server.fetch },
    );
    await expect(provider.tokens()).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    expect(server.requests).not.toContain('POST /register');
    expect(server.refreshes()).toEqual(['rt1']);
    expect(states.get('srv')?.client).toBeUndefined();
  });

  it('asks a client-credentials token fetched on expiry for what it had, whatever an old 403 said', async () => {
    const server = fakeAuthorizationServer({ hold: false });
    const { provider } = providerOf(
      { ...credentialsGrant, scopes: ['read'] },
      { tokens: { access_token: 'old', token_type: 'Bearer', scope: 'read' }, expiresAt: 0 },
      false,
      { fetch: server.fetch, refusal: () => insufficientScope('admin') },
    );
    expect((await provider.tokens())?.access_token).toBe('fresh');
    expect(server.scopes).toEqual(['read']);
  });

  it('says why a refresh failed, with the tokens and the client secret masked', async () => {
    const secretTokens = { access_token: 'access-secret-1', token_type: 'Bearer', refresh_token: 'refresh-secret-1' };
    const server = fakeAuthorizationServer({
      hold: false,
      // A careless authorization server echoes what it was sent.
      answer: {
        status: 400,
        body: { error: 'invalid_grant', error_description: 'refresh-secret-1 of client-secret-1 is revoked' },
      },
    });
    const failures: string[] = [];
    const { provider } = providerOf(
      { ...codeGrant, clientId: 'registered', clientSecret: 'client-secret-1' },
      { tokens: secretTokens, expiresAt: 0 },
      false,
      { fetch: server.fetch, onRefreshFailure: (message) => failures.push(message) },
    );
    await expect(provider.tokens()).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('refreshing the OAuth token of MCP server srv failed');
    expect(failures[0]).toContain('is revoked');
    expect(failures[0]).not.toMatch(/refresh-secret-1|client-secret-1|access-secret-1/);
  });

  it('masks a registered client’s secret too, and never quotes a token answer it could not use', async () => {
    const echoing = fakeAuthorizationServer({
      hold: false,
      answer: { status: 400, body: { error: 'invalid_client', error_description: 'dcr-secret-1 is wrong' } },
    });
    const failures: string[] = [];
    const client = { client_id: 'dcr', client_secret: 'dcr-secret-1', redirect_uris: ['http://127.0.0.1:9/cb'] };
    const registeredClient = providerOf(codeGrant, { tokens: expired, expiresAt: 0, client }, false, {
      fetch: echoing.fetch,
      onRefreshFailure: (message) => failures.push(message),
    });
    await expect(registeredClient.provider.tokens()).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    expect(failures).toEqual([expect.stringContaining('invalid_client')]);
    expect(failures[0]).not.toContain('dcr-secret-1');
    // A 200 that is no token answer: the JSON parser's error would quote its start.
    const garbled = fakeAuthorizationServer({ hold: false, answer: { status: 200, body: 'NEWTOKEN-abcdef-123456 …' } });
    const credentials = providerOf(
      credentialsGrant,
      { tokens: { access_token: 'old-token-1', token_type: 'Bearer' }, expiresAt: 0 },
      false,
      { fetch: garbled.fetch, onRefreshFailure: (message) => failures.push(message) },
    );
    await credentials.provider.tokens();
    expect(failures[1]).toContain('answered HTTP 200 without a usable token');
    expect(failures[1]).not.toContain('NEWTOKEN');
  });

  it('says that an issued token could not be stored, not that the authorization server failed', async () => {
    const server = fakeAuthorizationServer({ hold: false });
    const failures: string[] = [];
    const { provider } = providerOf(registered, { tokens: expired, expiresAt: 0 }, false, {
      fetch: server.fetch,
      onRefreshFailure: (message) => failures.push(message),
    });
    // Redis goes away between the token answer and its write.
    const store = (provider as unknown as { options: { store: { writeIfUnchanged: unknown } } }).options.store;
    store.writeIfUnchanged = async () => {
      throw new Error('Connection is closed.');
    };
    await provider.tokens();
    expect(failures).toEqual([expect.stringContaining('a token was issued, and storing it failed')]);
    expect(failures[0]).toContain('Connection is closed.');
  });

  it('takes an expires_in of 0 for no stated expiry, not for a refresh before every request', async () => {
    const server = fakeAuthorizationServer({
      hold: false,
      answer: { status: 200, body: { access_token: 'fresh', token_type: 'Bearer', expires_in: 0 } },
    });
    const { provider, states } = providerOf(
      { ...credentialsGrant },
      { tokens: { access_token: 'old', token_type: 'Bearer' }, expiresAt: 0 },
      false,
      { fetch: server.fetch },
    );
    for (let request = 0; request < 3; request += 1) expect((await provider.tokens())?.access_token).toBe('fresh');
    expect(server.requests.filter((request) => request.startsWith('POST /token'))).toHaveLength(1);
    expect(states.get('srv')?.expiresAt).toBeUndefined();
  });

  it('refreshes a short-lived token near its end, not before every request', async () => {
    const server = fakeAuthorizationServer({ hold: false });
    const { provider } = providerOf(
      registered,
      // A 20 s token with 15 s left: inside the usual 30 s margin, but most of its life ahead.
      { tokens: { ...expired, expires_in: 20 }, expiresAt: Date.now() + 15_000 },
      false,
      { fetch: server.fetch },
    );
    expect((await provider.tokens())?.access_token).toBe('stale');
    expect(server.refreshes()).toEqual([]);
    // A long-lived token with as little left is refreshed first.
    const long = providerOf(
      registered,
      { tokens: { ...expired, expires_in: 3600 }, expiresAt: Date.now() + 15_000 },
      false,
      {
        fetch: server.fetch,
      },
    );
    expect((await long.provider.tokens())?.access_token).toBe('fresh');
    expect(server.refreshes()).toEqual(['rt1']);
  });

  it('ends a refresh’s requests before its lease can pass to another process', async () => {
    const server = fakeAuthorizationServer();
    const failures: string[] = [];
    const { provider, states } = providerOf(
      registered,
      { tokens: expired, expiresAt: 0 },
      false,
      { fetch: server.fetch, onRefreshFailure: (message) => failures.push(message) },
      () => AbortSignal.timeout(20),
    );
    // The token endpoint never answers: the lease's deadline ends the request, and the request
    // goes out with what there is. The SDK swallows that failure; the provider still says it.
    expect(await provider.tokens()).toMatchObject({ access_token: 'stale' });
    expect(failures).toEqual([expect.stringMatching(/MCP server srv failed: TimeoutError/)]);
    expect(server.refreshes()).toEqual(['rt1']);
    expect(states.get('srv')?.tokens?.refresh_token).toBe('rt1');
  });
});

describe('McpOAuthProvider writes', () => {
  const working = { access_token: 'good', token_type: 'Bearer', refresh_token: 'rtgood' };

  it('keeps the working tokens when an operator’s code exchange is refused', async () => {
    const server = fakeAuthorizationServer({
      hold: false,
      answer: { status: 400, body: { error: 'invalid_grant', error_description: 'code expired' } },
    });
    const { provider, states } = providerOf(
      codeGrant,
      { tokens: working, client: { client_id: 'dyn', redirect_uris: ['http://127.0.0.1:9/cb'] } },
      false,
      {
        fetch: server.fetch,
        interactive: {
          redirectUrl: 'http://127.0.0.1:9/cb',
          state: 'st',
          codeVerifier: 'verifier',
          onAuthorizationUrl: async () => undefined,
        },
      },
    );
    await expect(auth(provider, { serverUrl, authorizationCode: 'code', fetchFn: server.fetch })).rejects.toThrow();
    expect(states.get('srv')?.tokens).toEqual(working);
  });

  it('records a pending scope only beside the refused tokens, never over a deauthorize', async () => {
    const { provider, states } = providerOf(codeGrant, { tokens: { ...working, scope: 'a' } }, false, {
      refusedBearer: () => 'good',
      refusal: () => insufficientScope('a b'),
    });
    await provider.tokens();
    states.delete('srv');
    await expect(
      provider.redirectToAuthorization(new URL('https://as.example.com/authorize?scope=a+b')),
    ).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });
    expect(states.has('srv')).toBe(false);
  });

  it('keeps a record of a newer definition from a headless authorization-code process', async () => {
    const { provider, states } = providerOf(codeGrant, { tokens: { ...working, scope: 'a' } }, false, {
      refusedBearer: () => 'good',
    });
    await provider.tokens();
    const newer = { binding: 'a-newer-definition', tokens: { access_token: 'good', token_type: 'Bearer' } };
    states.set('srv', newer);
    await provider.invalidateCredentials('all');
    await provider.redirectToAuthorization(new URL('https://as.example.com/authorize'));
    expect(states.get('srv')).toEqual(newer);
  });

  it('lets a client-credentials process on a changed definition start its own record', async () => {
    const { provider, states } = providerOf(credentialsGrant, {});
    states.set('srv', { binding: 'the-old-definition', tokens: { access_token: 'old', token_type: 'Bearer' } });
    await provider.saveTokens({ access_token: 'new', token_type: 'Bearer', expires_in: 1e306 });
    expect(states.get('srv')).toMatchObject({
      binding: oauthBinding(serverUrl, credentialsGrant),
      tokens: { access_token: 'new' },
    });
    expect(Number.isFinite(states.get('srv')?.expiresAt)).toBe(true);
  });

  it('forgets a refused client in an operator’s flow and keeps what goes with the tokens', async () => {
    const { provider, states } = providerOf(
      codeGrant,
      { tokens: working, expiresAt: 5, pendingScope: 'a b', client: { client_id: 'dyn', redirect_uris: [] } },
      true,
    );
    await provider.invalidateCredentials('all');
    expect(states.get('srv')).toMatchObject({ tokens: working, expiresAt: 5, pendingScope: 'a b' });
    expect(states.get('srv')?.client).toBeUndefined();
  });
});
