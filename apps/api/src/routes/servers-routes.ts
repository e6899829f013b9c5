import type { AgentqClient } from '@agentq/client';
import {
  AgentqError,
  catalogStatusSchema,
  SERVER_CATALOG_STATES,
  serverDefinitionSchema,
  serverIdSchema,
} from '@agentq/shared';
import { z } from 'zod';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, conflictError, errorBodySchema, notFoundError, validationError } from './common-schemas.js';

const serverParams = z.strictObject({ serverId: serverIdSchema });

const serverInfoSchema = z
  .strictObject({
    definition: serverDefinitionSchema,
    state: z.enum(SERVER_CATALOG_STATES),
    status: catalogStatusSchema.nullable(),
  })
  .meta({ id: 'ServerInfo' });

/** `/v1/servers`: MCP server definitions and their lifecycle. */
export function serversRoutes(client: AgentqClient): ApiRoute[] {
  const toggle = (enabled: boolean) =>
    defineRoute({
      method: 'POST',
      scope: 'servers',
      path: `/v1/servers/{serverId}/${enabled ? 'enable' : 'disable'}`,
      operationId: enabled ? 'enableServer' : 'disableServer',
      summary: enabled ? 'Enable a server (warmers prewarm it)' : 'Disable a server (runs stop using it)',
      tag: 'servers',
      params: serverParams,
      responses: {
        200: { description: 'The definition', schema: serverDefinitionSchema },
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params }) {
        return { body: await client.setServerEnabled(params.serverId, enabled) };
      },
    });
  const refresh = (kind: 'refresh' | 'restart') =>
    defineRoute({
      method: 'POST',
      scope: 'servers',
      path: `/v1/servers/{serverId}/${kind}`,
      operationId: kind === 'refresh' ? 'refreshServer' : 'restartServer',
      summary:
        kind === 'refresh'
          ? 'Re-read the tool list now (deduplicated)'
          : 'Open a new session to the server everywhere (watcher and workers), then re-read its tools',
      tag: 'servers',
      params: serverParams,
      responses: {
        202: { description: 'Requested', schema: z.strictObject({ serverId: z.string(), requested: z.literal(kind) }) },
        404: notFoundError,
        409: conflictError,
        ...commonErrors,
      },
      async handler({ params }) {
        if (kind === 'refresh') await client.refreshServer(params.serverId);
        else await client.restartServer(params.serverId);
        return { status: 202, body: { serverId: params.serverId, requested: kind } };
      },
    });
  return [
    defineRoute({
      method: 'GET',
      scope: 'servers',
      path: '/v1/servers',
      operationId: 'listServers',
      summary: 'List MCP servers with their catalog status',
      tag: 'servers',
      responses: {
        200: { description: 'Servers', schema: z.strictObject({ servers: z.array(serverInfoSchema) }) },
        ...commonErrors,
      },
      async handler() {
        return { body: { servers: await client.listServers() } };
      },
    }),
    defineRoute({
      method: 'PUT',
      scope: 'servers',
      path: '/v1/servers/{serverId}',
      operationId: 'putServer',
      summary: 'Create or replace a server definition (secrets as ${AGENTQ_SECRET_*} placeholders)',
      tag: 'servers',
      params: serverParams,
      body: serverDefinitionSchema.omit({ id: true }).extend({ id: serverIdSchema.optional() }),
      responses: {
        200: { description: 'Stored definition', schema: serverDefinitionSchema },
        400: validationError,
        ...commonErrors,
        403: {
          description:
            'FORBIDDEN: a token without the servers scope, or a stdio command the operator has not allowed over the API (AGENTQ_ALLOW_STDIO_FROM_API, AGENTQ_STDIO_COMMANDS)',
          schema: errorBodySchema,
        },
      },
      async handler({ params, body }) {
        if (body.id !== undefined && body.id !== params.serverId) {
          throw new AgentqError({ code: 'VALIDATION', field: 'id', message: 'id in the body must match the path' });
        }
        // Always the `api` origin: a caller of the API is never the operator, whatever its token.
        return { body: await client.putServer({ ...body, id: params.serverId }, { origin: 'api' }) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      scope: 'servers',
      path: '/v1/servers/{serverId}',
      operationId: 'removeServer',
      summary: 'Remove a server definition',
      tag: 'servers',
      params: serverParams,
      responses: { 204: { description: 'Removed' }, 404: notFoundError, ...commonErrors },
      async handler({ params }) {
        await client.removeServer(params.serverId);
        return { status: 204 };
      },
    }),
    toggle(true),
    toggle(false),
    refresh('refresh'),
    refresh('restart'),
  ];
}
