import type { AgentqClient } from '@agentq/client';
import {
  catalogCacheScopeSchema,
  catalogReadBySchema,
  catalogStatusSchema,
  catalogToolSchema,
  SERVER_CATALOG_STATES,
  serverIdSchema,
} from '@agentq/shared';
import { z } from 'zod';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, notFoundError } from './common-schemas.js';

const catalogViewSchema = z
  .looseObject({
    serverId: z.string(),
    state: z.enum(SERVER_CATALOG_STATES),
    tools: z.array(catalogToolSchema),
    version: z.string().optional(),
    refreshedAt: z.number().optional(),
    ageMs: z.number().optional(),
    cacheScope: catalogCacheScopeSchema.optional(),
    ttlMs: z.number().optional(),
    readBy: catalogReadBySchema.optional(),
    status: catalogStatusSchema.nullable(),
  })
  .meta({ id: 'CatalogView' });

/** `/v1/catalog`: the cached tool list of a server, as runs see it. Cache-only. */
export function catalogRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      scope: 'servers',
      path: '/v1/catalog/{serverId}',
      operationId: 'getCatalog',
      summary: 'Cached tools, status and age of a server',
      tag: 'catalog',
      params: z.strictObject({ serverId: serverIdSchema }),
      responses: {
        200: { description: 'The catalog', schema: catalogViewSchema },
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params }) {
        return { body: await client.getCatalog(params.serverId) };
      },
    }),
  ];
}
