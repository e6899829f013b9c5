import { randomBytes } from 'node:crypto';
import {
  AgentqError,
  createGuardedFetch,
  maskServerError,
  NonRetryableError,
  type EgressSecret,
  type ServerDefinition,
} from '@agentq/shared';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { messageOf } from '../errors/describe-sdk-error.js';
import { McpOAuthProvider, oauthBinding, unionOfScopes } from './mcp-oauth-provider.js';
import { withOAuthEgress } from './oauth-egress.js';
import type { OAuthTokenStore } from '@agentq/store';

/** The egress policy and secrets of OAuth requests made outside a connection. */
export interface OAuthRequestOptions {
  /** A definition whose secrets are resolved (`resolveSecrets`). */
  definition: ServerDefinition;
  /** `resolveSecrets`' `egressSecrets` and `oauthSecrets`. */
  egressSecrets: readonly EgressSecret[];
  oauthSecrets?: readonly EgressSecret[];
  /** Every resolved secret value, masked out of errors. */
  secretValues: readonly string[];
  store: OAuthTokenStore;
  allowPrivateNetwork?: boolean;
  allowHosts?: readonly string[];
  /** @default a `createGuardedFetch` with the policy above */
  fetch?: typeof globalThis.fetch;
  /** `AGENTQ_OAUTH_CLIENT_METADATA_URL`; see {@link McpOAuthProvider}. */
  clientMetadataUrl?: string;
}

/** The fetch every OAuth request of a server goes through: the egress guard, then {@link withOAuthEgress}. */
export function oauthFetchOf(options: Omit<OAuthRequestOptions, 'store' | 'secretValues'>): typeof globalThis.fetch {
  const { definition } = options;
  const label = `MCP server ${definition.id}`;
  const guarded =
    options.fetch ??
    (createGuardedFetch({
      allowPrivate: options.allowPrivateNetwork ?? false,
      allowHosts: options.allowHosts,
      label,
      secrets: options.egressSecrets,
    }) as typeof globalThis.fetch);
  return withOAuthEgress({
    fetch: guarded,
    serverUrl: httpUrlOf(definition),
    headerSecrets: options.egressSecrets,
    client: { id: definition.auth?.clientId, secret: options.oauthSecrets?.[0] },
    label,
  });
}

/**
 * Starts an operator's authorization-code flow (with PKCE) for a server whose `auth.grant` is
 * `authorization_code`: discovery and, without a pre-registered client, dynamic registration
 * happen here, through the egress guard. The flow (its code verifier and redirect URI) is stored
 * under a fresh random `state`, single use and expiring (`flowTtlMs`); the callback completes it
 * with {@link finishAuthorization}. Returns the URL to open.
 */
export async function startAuthorization(
  options: OAuthRequestOptions & { redirectUrl: string },
): Promise<{ authorizationUrl: string; state: string; expiresInMs: number }> {
  const { definition, store } = options;
  const serverAuth = requireCodeGrant(definition);
  const state = randomBytes(32).toString('base64url');
  let authorizationUrl: URL | undefined;
  const provider = new McpOAuthProvider({
    serverId: definition.id,
    serverUrl: httpUrlOf(definition),
    auth: serverAuth,
    store,
    fetch: oauthFetchOf(options),
    clientMetadataUrl: options.clientMetadataUrl,
    interactive: {
      redirectUrl: options.redirectUrl,
      state,
      onAuthorizationUrl: async (url, codeVerifier) => {
        authorizationUrl = url;
        await store.saveFlow(state, {
          serverId: definition.id,
          binding: oauthBinding(httpUrlOf(definition), serverAuth),
          codeVerifier,
          redirectUrl: options.redirectUrl,
          startedAt: Date.now(),
        });
      },
    },
  });
  const challenge = await challengeOf(options);
  // A step-up the warmer or worker recorded (403 insufficient_scope) is asked for here.
  const stored = await store.read(definition.id);
  const pendingScope =
    stored?.binding === oauthBinding(httpUrlOf(definition), serverAuth) ? stored.pendingScope : undefined;
  const scope = unionOfScopes(challenge.scope, pendingScope);
  await runAuth(options, () =>
    auth(provider, {
      serverUrl: httpUrlOf(definition),
      fetchFn: oauthFetchOf(options),
      ...challenge,
      ...(scope ? { scope } : {}),
    }),
  );
  if (!authorizationUrl) {
    throw new NonRetryableError({
      code: 'MCP_AUTH_FAILED',
      message: `MCP server ${definition.id}: the authorization server did not start an authorization-code flow`,
    });
  }
  return { authorizationUrl: authorizationUrl.href, state, expiresInMs: store.flowTtlMs };
}

/**
 * Takes the flow a callback's `state` names (once: a replayed or expired `state` fails with
 * `OAUTH_FLOW_INVALID`) and returns its server id, so the caller can load and resolve that
 * server's definition for {@link finishAuthorization}.
 */
export async function takeAuthorizationFlow(
  store: OAuthTokenStore,
  state: string,
): Promise<{ serverId: string; complete: (options: OAuthRequestOptions & { code: string }) => Promise<void> }> {
  const flow = state.length > 0 && state.length <= 200 ? await store.takeFlow(state) : undefined;
  if (!flow) {
    throw new NonRetryableError({
      code: 'OAUTH_FLOW_INVALID',
      message: 'This authorization is unknown, already completed or expired; start it again',
    });
  }
  return {
    serverId: flow.serverId,
    complete: async (options) => {
      const { definition } = options;
      const serverAuth = requireCodeGrant(definition);
      if (definition.id !== flow.serverId || oauthBinding(httpUrlOf(definition), serverAuth) !== flow.binding) {
        throw new NonRetryableError({
          code: 'OAUTH_FLOW_INVALID',
          message: `MCP server ${flow.serverId} changed since this authorization started; start it again`,
        });
      }
      const provider = new McpOAuthProvider({
        serverId: definition.id,
        serverUrl: httpUrlOf(definition),
        auth: serverAuth,
        store,
        fetch: oauthFetchOf(options),
        interactive: {
          redirectUrl: flow.redirectUrl,
          state,
          codeVerifier: flow.codeVerifier,
          onAuthorizationUrl: async () => undefined,
        },
      });
      const challenge = await challengeOf(options);
      const result = await runAuth(options, () =>
        auth(provider, {
          serverUrl: httpUrlOf(definition),
          authorizationCode: options.code,
          fetchFn: oauthFetchOf(options),
          ...challenge,
        }),
      );
      if (result !== 'AUTHORIZED') {
        throw new NonRetryableError({
          code: 'MCP_AUTH_FAILED',
          message: `MCP server ${definition.id}: the authorization code was not exchanged for tokens`,
        });
      }
    },
  };
}

async function runAuth<T>(options: OAuthRequestOptions, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (AgentqError.isInstance(error)) throw error;
    throw new NonRetryableError({
      code: 'MCP_AUTH_FAILED',
      message: maskServerError(`MCP server ${options.definition.id}: ${messageOf(error)}`, options.secretValues),
    });
  }
}

/**
 * What the server's own `401` says about its authorization: the protected-resource metadata URL
 * and the scope of its `WWW-Authenticate` challenge. An operator's flow starts without a request
 * that could have been refused, so one unauthenticated `initialize` is sent to get the challenge;
 * a server that names its metadata only there (a custom location) is then found, and the scope it
 * asks for is requested. Without a challenge (any failure, no 401), discovery falls back to the
 * well-known locations.
 */
async function challengeOf(options: OAuthRequestOptions): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    const response = await oauthFetchOf(options)(httpUrlOf(options.definition), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'agentq', version: '0.1.0' } },
      }),
      signal: AbortSignal.timeout(options.definition.timeouts.connectMs),
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status !== 401 && response.status !== 403) return {};
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  } catch {
    return {};
  }
}

function requireCodeGrant(definition: ServerDefinition) {
  if (definition.auth?.grant !== 'authorization_code') {
    throw new NonRetryableError({
      code: 'VALIDATION',
      field: 'auth.grant',
      message: `MCP server ${definition.id} has no authorization_code auth block to authorize`,
    });
  }
  return definition.auth;
}

/** The URL of an HTTP server definition (OAuth applies to HTTP transports only). */
export function httpUrlOf(definition: ServerDefinition): string {
  if (definition.transport.type === 'stdio') {
    throw new NonRetryableError({
      code: 'VALIDATION',
      field: 'auth',
      message: `MCP server ${definition.id}: auth applies to HTTP transports only`,
    });
  }
  return definition.transport.url;
}
