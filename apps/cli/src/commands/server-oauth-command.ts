import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentqClient } from '@agentq/client';
import { startAuthorization, takeAuthorizationFlow } from '@agentq/mcp-connect';
import { OAuthTokenStore } from '@agentq/store';
import {
  AgentqError,
  EXIT_CODES,
  NonRetryableError,
  resolveSecrets,
  type Config,
  type ServerDefinition,
} from '@agentq/shared';
import { keyNames, ServerStore } from '@agentq/store';
import type { CliIo } from '../cli-io.js';
import { withClient } from '../with-client.js';

/** Options of `agentq servers authorize`. */
export interface AuthorizeServerOptions {
  /** Port of the loopback listener the browser comes back to. @default any free port */
  port?: number;
}

/**
 * `agentq servers authorize <id>`: starts the authorization-code flow (PKCE, RFC 8707 `resource`)
 * of a server whose `auth.grant` is `authorization_code`, prints the URL to open, and waits on a
 * loopback listener (`http://127.0.0.1:<port>/callback`) for the authorization server to send the
 * browser back. The callback's `state` must name the flow this command started (single use); the
 * code is exchanged, the tokens stored encrypted, and the server refreshed.
 */
export async function authorizeServerCommand(
  io: CliIo,
  serverId: string,
  options: AuthorizeServerOptions = {},
): Promise<number> {
  return await withClient(io, async (client, config) => {
    const { store, definition } = await oauthContext(client, config, serverId);
    const resolved = resolveSecrets(definition, io.env);
    const policy = {
      ...resolved,
      store,
      allowPrivateNetwork: config.allowPrivateFetch,
      allowHosts: config.fetchAllowHosts,
      clientMetadataUrl: config.oauthClientMetadataUrl,
    };
    let settle: (outcome: { ok: true } | { ok: false; error: unknown }) => void = () => undefined;
    const finished = new Promise<{ ok: true } | { ok: false; error: unknown }>((resolve) => (settle = resolve));
    const listener = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') {
        response.writeHead(404).end();
        return;
      }
      const answer = async () => {
        const flow = await takeAuthorizationFlow(store, url.searchParams.get('state') ?? '');
        const error = url.searchParams.get('error');
        if (error !== null || flow.serverId !== serverId) {
          throw new NonRetryableError({
            code: 'OAUTH_FLOW_INVALID',
            message: `The authorization server refused: ${error ?? 'another server'}`,
          });
        }
        await flow.complete({ ...policy, code: url.searchParams.get('code') ?? '' });
      };
      answer().then(
        () => {
          response.writeHead(200, { 'content-type': 'text/plain' }).end('agentq is connected. You can close this tab.');
          settle({ ok: true });
        },
        (error: unknown) => {
          response.writeHead(400, { 'content-type': 'text/plain' }).end('The authorization did not complete.');
          // An unknown state (a stray or replayed request) does not end the wait for the real one.
          if (!(
            AgentqError.isInstance(error) &&
            error.code === 'OAUTH_FLOW_INVALID' &&
            !url.searchParams.has('error')
          )) {
            settle({ ok: false, error });
          }
        },
      );
    });
    await new Promise<void>((resolve) => listener.listen(options.port ?? 0, '127.0.0.1', resolve));
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          error: new NonRetryableError({ code: 'TIMEOUT', message: 'The authorization was not completed in time' }),
        }),
      store.flowTtlMs,
    );
    try {
      const redirectUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
      const started = await startAuthorization({ ...policy, redirectUrl });
      io.out(`Open this URL to authorize agentq for ${serverId}:`);
      io.out(started.authorizationUrl);
      io.out(`Waiting for the authorization server to return to ${redirectUrl} ...`);
      const outcome = await finished;
      if (!outcome.ok) throw outcome.error;
      await client.refreshServer(serverId);
      io.out(`Authorized ${serverId}; asked the warmers to refresh it.`);
      return EXIT_CODES.ok;
    } finally {
      clearTimeout(timer);
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });
}

/** `agentq servers deauthorize <id>`: deletes the server's stored tokens and registered client. */
export async function deauthorizeServerCommand(io: CliIo, serverId: string): Promise<number> {
  return await withClient(io, async (client, config) => {
    const { store } = await oauthContext(client, config, serverId);
    const deleted = await store.delete(serverId);
    await client.refreshServer(serverId);
    io.out(deleted ? `Deleted the OAuth tokens of ${serverId}.` : `${serverId} had no stored OAuth tokens.`);
    return EXIT_CODES.ok;
  });
}

async function oauthContext(
  client: AgentqClient,
  config: Config,
  serverId: string,
): Promise<{ store: OAuthTokenStore; definition: ServerDefinition }> {
  const definition = await new ServerStore({ redis: client.redis, prefix: client.prefix }).get(serverId);
  if (!definition) {
    throw new NonRetryableError({ code: 'NOT_FOUND', field: 'serverId', message: `No MCP server ${serverId}` });
  }
  if (!definition.auth) {
    throw new NonRetryableError({
      code: 'VALIDATION',
      field: 'auth',
      message: `MCP server ${serverId} has no auth block: it does not use OAuth, so it has no tokens to store or delete`,
    });
  }
  // Only once the server is known to use OAuth: a wrong id or a server without OAuth says so first.
  if (!config.secretKey) {
    throw new NonRetryableError({
      code: 'OAUTH_KEY_MISSING',
      message: 'AGENTQ_SECRET_KEY is not set: OAuth tokens cannot be stored or deleted without it',
    });
  }
  const store = new OAuthTokenStore({
    redis: client.redis,
    keys: keyNames(client.prefix),
    secretKey: config.secretKey,
  });
  return { store, definition };
}
