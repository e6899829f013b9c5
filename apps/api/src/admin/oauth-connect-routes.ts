import type { AgentqClient } from '@agentq/client';
import { startAuthorization, takeAuthorizationFlow } from '@agentq/mcp-connect';
import { type OAuthTokenStore } from '@agentq/store';
import { AgentqError, apiBaseUrlOf, resolveSecrets, type ApiScope } from '@agentq/shared';
import { ServerStore } from '@agentq/store';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { RouteAccess } from '../auth/route-access.js';

/** What the admin "Connect" flow needs besides the client. */
export interface OAuthConnectOptions {
  client: AgentqClient;
  /** The encrypted token store (`AGENTQ_SECRET_KEY`); unset: Connect answers `OAUTH_KEY_MISSING`. */
  store: OAuthTokenStore | undefined;
  /** Where the API resolves a definition's secrets. */
  env: Record<string, string | undefined>;
  allowPrivateNetwork: boolean;
  allowHosts: readonly string[];
  /**
   * `AGENTQ_API_URL`: the callback URL's base. Unset: the address the API listens on
   * (`listenHost` and the bound port), never a request header.
   */
  apiUrl: string | undefined;
  /** The host the API was told to listen on (`AGENTQ_API_HOST`). @default the bound address */
  listenHost?: string;
  /** `AGENTQ_OAUTH_CLIENT_METADATA_URL`: the client id where an authorization server supports it. */
  clientMetadataUrl?: string;
}

const CALLBACK_PATH = '/admin/oauth/callback';
const callbackQuery = z.object({
  state: z.string().max(200).default(''),
  code: z.string().max(4_096).optional(),
  error: z.string().max(200).optional(),
});

/**
 * A server's definition, with its secrets resolved under the API's policy, ready for
 * `startAuthorization` and a flow's `complete`. `OAUTH_KEY_MISSING` without `AGENTQ_SECRET_KEY`,
 * `NOT_FOUND` for an unknown server.
 */
export async function oauthRequestContext(options: OAuthConnectOptions, serverId: string) {
  if (!options.store) {
    throw new AgentqError({ code: 'OAUTH_KEY_MISSING', message: 'AGENTQ_SECRET_KEY is not set on the API' });
  }
  const definition = await new ServerStore({ redis: options.client.redis, prefix: options.client.prefix }).get(
    serverId,
  );
  if (!definition) throw new AgentqError({ code: 'NOT_FOUND', message: `No MCP server ${serverId}` });
  return {
    ...resolveSecrets(definition, options.env),
    store: options.store,
    allowPrivateNetwork: options.allowPrivateNetwork,
    allowHosts: options.allowHosts,
    clientMetadataUrl: options.clientMetadataUrl,
  };
}

/**
 * The public callback every authorization started by the API comes back to: under `AGENTQ_API_URL`,
 * else under the address the API itself listens on (the configured host, 127.0.0.1 for a wildcard,
 * and the bound port). Never under the request's `Host` or forwarding headers: a caller could then
 * send the authorization code to a host of its choosing. `CONFIG_INVALID` when neither is known
 * (an API that is not listening on a TCP port).
 */
export function oauthCallbackUrl(
  options: Pick<OAuthConnectOptions, 'apiUrl' | 'listenHost'>,
  request: FastifyRequest,
): string {
  if (options.apiUrl) return `${options.apiUrl}${CALLBACK_PATH}`;
  const address = request.server.server.address();
  if (!address || typeof address === 'string') {
    throw new AgentqError({
      code: 'CONFIG_INVALID',
      field: 'AGENTQ_API_URL',
      message: 'The OAuth callback needs AGENTQ_API_URL: the API does not listen on a TCP address of its own',
    });
  }
  const base = apiBaseUrlOf({
    apiUrl: undefined,
    apiHost: options.listenHost ?? address.address,
    apiPort: address.port,
  });
  return `${base}${CALLBACK_PATH}`;
}

function pageFor(...scopes: ApiScope[]): RouteAccess {
  return { kind: 'page', scopes };
}

/**
 * The catalog page's "Connect" button and the OAuth callback it leads back to:
 * - `POST /admin/catalog/:serverId/connect` (a `servers` session, CSRF-checked like every admin
 *   form) starts the server's authorization-code flow and sends the browser to the authorization
 *   server;
 * - `GET /admin/oauth/callback` is public: the session cookie is SameSite=Strict, so a browser
 *   coming back from another site does not send it. What authorizes the callback is its `state`:
 *   256 random bits bound to the one flow it started, taken once (`GETDEL`) and expiring, so a
 *   replayed, forged or late callback finds nothing and changes nothing.
 */
export function registerOAuthConnectRoutes(app: FastifyInstance, options: OAuthConnectOptions): void {
  const back = (reply: FastifyReply, kind: 'notice' | 'error', text: string) =>
    reply.redirect(`/admin/catalog?${kind}=${encodeURIComponent(text)}`, 303);
  const describe = (error: unknown) =>
    AgentqError.isInstance(error) ? `${error.code}: ${error.message}` : 'The authorization failed';
  const contextOf = (serverId: string) => oauthRequestContext(options, serverId);
  const callbackUrl = (request: FastifyRequest) => oauthCallbackUrl(options, request);

  app.post('/admin/catalog/:serverId/connect', { config: { access: pageFor('servers') } }, async (request, reply) => {
    const serverId = (request.params as { serverId: string }).serverId;
    try {
      const started = await startAuthorization({ ...(await contextOf(serverId)), redirectUrl: callbackUrl(request) });
      return reply.redirect(started.authorizationUrl, 303);
    } catch (error) {
      return back(reply, 'error', describe(error));
    }
  });

  app.get(CALLBACK_PATH, { config: { access: { kind: 'public' } satisfies RouteAccess } }, async (request, reply) => {
    const query = callbackQuery.safeParse(request.query);
    if (!query.success || !options.store) return back(reply, 'error', 'OAUTH_FLOW_INVALID: a malformed callback');
    try {
      // Taken first, whatever the answer: a refused or failed flow cannot be completed later.
      const flow = await takeAuthorizationFlow(options.store, query.data.state);
      if (query.data.error !== undefined || query.data.code === undefined) {
        return back(reply, 'error', `The authorization server refused: ${query.data.error ?? 'no code'}`);
      }
      await flow.complete({ ...(await contextOf(flow.serverId)), code: query.data.code });
      await options.client.refreshServer(flow.serverId);
      return back(reply, 'notice', `Connected ${flow.serverId}; a refresh was requested`);
    } catch (error) {
      return back(reply, 'error', describe(error));
    }
  });
}
