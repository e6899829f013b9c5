import type { ServerAuth } from '@agentq/shared';
import type { OAuthTokenStore, StoredOAuthState } from '@agentq/store';
import { describe, expect, it } from 'vitest';
import { McpOAuthProvider, oauthBinding, unionOfScopes } from './mcp-oauth-provider.js';

const serverUrl = 'https://mcp.example.com/mcp';
const codeGrant: ServerAuth = { type: 'oauth', grant: 'authorization_code' };
const credentialsGrant: ServerAuth = { type: 'oauth', grant: 'client_credentials', clientId: 'c', clientSecret: 's' };

/** The store's read, write and lease over a map: what the provider uses of OAuthTokenStore. */
function memoryStore(initial?: StoredOAuthState) {
  const states = new Map<string, StoredOAuthState>();
  if (initial) states.set('srv', initial);
  const store = {
    flowTtlMs: 600_000,
    read: async (serverId: string) => states.get(serverId),
    write: async (serverId: string, state: StoredOAuthState) => void states.set(serverId, state),
    withRefreshLease: async <T>(_serverId: string, refresh: () => Promise<T>) => await refresh(),
  };
  return { store: store as unknown as OAuthTokenStore, states };
}

function providerOf(auth: ServerAuth, initial: Omit<StoredOAuthState, 'binding'>, interactive = false) {
  const { store, states } = memoryStore({ binding: oauthBinding(serverUrl, auth), ...initial });
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
  });
  return { provider, states };
}

describe('unionOfScopes', () => {
  it('joins scope lists without repeats, in first-seen order', () => {
    expect(unionOfScopes('a b', undefined, 'b c', '')).toBe('a b c');
    expect(unionOfScopes(undefined, '')).toBeUndefined();
  });
});

describe('McpOAuthProvider step-up', () => {
  it('records the scopes a headless authorization-code client was refused for, without marking the token rejected', async () => {
    const { provider, states } = providerOf(codeGrant, {
      tokens: { access_token: 'at', token_type: 'Bearer', scope: 'mcp:basic', refresh_token: 'rt' },
    });
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
    expect(await provider.tokens()).toBeUndefined();
    states.set('srv', {
      binding: oauthBinding(serverUrl, codeGrant),
      tokens: { access_token: 'at2', token_type: 'Bearer' },
    });
    expect(await provider.tokens()).toEqual({ access_token: 'at2', token_type: 'Bearer' });
    // Tokens stored for another definition (URL, grant or client) are not this server's.
    states.set('srv', { binding: 'another', tokens: { access_token: 'at3', token_type: 'Bearer' } });
    expect(await provider.tokens()).toBeUndefined();
  });
});
