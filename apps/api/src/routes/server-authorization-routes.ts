import { startAuthorization } from '@agentq/mcp-connect';
import { AgentqError, serverIdSchema } from '@agentq/shared';
import { z } from 'zod';
import { oauthCallbackUrl, oauthRequestContext, type OAuthConnectOptions } from '../admin/oauth-connect-routes.js';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, errorBodySchema, notFoundError, validationError } from './common-schemas.js';

const serverParams = z.strictObject({ serverId: serverIdSchema });

const authorizationStatusSchema = z.strictObject({
  serverId: z.string(),
  grant: z.enum(['client_credentials', 'authorization_code']),
  /** Whether tokens are stored (never the tokens themselves). */
  authorized: z.boolean(),
  /** When the stored access token expires, epoch ms; `null` when unknown or none. */
  expiresAt: z.number().nullable(),
  /** The server refused the stored access token: the next use refreshes it first. */
  rejected: z.boolean(),
});

const keyMissing = {
  description: 'OAUTH_KEY_MISSING: AGENTQ_SECRET_KEY is not set on the API, or UNAVAILABLE (Redis down)',
  schema: errorBodySchema,
};

/**
 * `/v1/servers/{id}/authorize` and `/v1/servers/{id}/authorization`: the operator's OAuth
 * connection of a server over REST, as `agentq servers authorize|deauthorize` and the catalog
 * page's "Connect" button do it. The authorization server sends the browser back to the API's
 * public `/admin/oauth/callback`, which the flow's single-use `state` authorizes.
 */
export function serverAuthorizationRoutes(options: OAuthConnectOptions): ApiRoute[] {
  const authBlockOf = async (serverId: string) => {
    const context = await oauthRequestContext(options, serverId);
    const serverAuth = context.definition.auth;
    if (!serverAuth) {
      throw new AgentqError({ code: 'VALIDATION', field: 'auth', message: `MCP server ${serverId} has no auth block` });
    }
    return { context, serverAuth };
  };
  return [
    defineRoute({
      method: 'POST',
      scope: 'servers',
      path: '/v1/servers/{serverId}/authorize',
      operationId: 'authorizeServer',
      summary: 'Start the authorization-code flow of a server and return the URL to open',
      tag: 'servers',
      params: serverParams,
      responses: {
        200: {
          description: 'Open authorizationUrl in a browser; the flow completes at callbackUrl',
          schema: z.strictObject({
            serverId: z.string(),
            authorizationUrl: z.string(),
            callbackUrl: z.string(),
            expiresInMs: z.number(),
          }),
        },
        400: {
          ...validationError,
          description:
            'VALIDATION: the server has no authorization_code auth block, or CONFIG_INVALID: AGENTQ_API_URL is unset and the API has no listen address of its own for the callback',
        },
        404: notFoundError,
        ...commonErrors,
        503: keyMissing,
      },
      async handler({ params, request }) {
        const { context } = await authBlockOf(params.serverId);
        const callbackUrl = oauthCallbackUrl(options, request);
        const started = await startAuthorization({ ...context, redirectUrl: callbackUrl });
        return {
          body: {
            serverId: params.serverId,
            authorizationUrl: started.authorizationUrl,
            callbackUrl,
            expiresInMs: started.expiresInMs,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      scope: 'servers',
      path: '/v1/servers/{serverId}/authorization',
      operationId: 'getServerAuthorization',
      summary: 'Whether a server has stored OAuth tokens, and until when (never the tokens)',
      tag: 'servers',
      params: serverParams,
      responses: {
        200: { description: 'The authorization status', schema: authorizationStatusSchema },
        400: { ...validationError, description: 'VALIDATION: the server has no auth block' },
        404: notFoundError,
        ...commonErrors,
        503: keyMissing,
      },
      async handler({ params }) {
        const { context, serverAuth } = await authBlockOf(params.serverId);
        const state = await context.store.read(params.serverId);
        return {
          body: {
            serverId: params.serverId,
            grant: serverAuth.grant,
            authorized: state?.tokens !== undefined,
            expiresAt: state?.expiresAt ?? null,
            rejected: state?.rejected === true,
          },
        };
      },
    }),
    defineRoute({
      method: 'DELETE',
      scope: 'servers',
      path: '/v1/servers/{serverId}/authorization',
      operationId: 'deauthorizeServer',
      summary: "Delete a server's stored OAuth tokens and registered client, and refresh it",
      tag: 'servers',
      params: serverParams,
      responses: {
        200: { description: 'Deleted', schema: z.strictObject({ serverId: z.string(), deleted: z.boolean() }) },
        400: { ...validationError, description: 'VALIDATION: the server has no auth block' },
        404: notFoundError,
        ...commonErrors,
        503: keyMissing,
      },
      async handler({ params }) {
        const { context } = await authBlockOf(params.serverId);
        const deleted = await context.store.delete(params.serverId);
        await options.client.refreshServer(params.serverId);
        return { body: { serverId: params.serverId, deleted } };
      },
    }),
  ];
}
