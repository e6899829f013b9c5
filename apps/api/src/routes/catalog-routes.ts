import type { AgentqClient } from '@agentq/client';
import {
  catalogCacheScopeSchema,
  catalogReadBySchema,
  catalogStatusSchema,
  catalogToolSchema,
  catalogVersionSchema,
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

const catalogSnapshotSchema = z
  .strictObject({
    serverId: z.string(),
    version: z.string(),
    tools: z.array(catalogToolSchema),
    refreshedAt: z.number(),
  })
  .meta({ id: 'CatalogSnapshot' });

const getCatalogQuery = z.strictObject({
  version: catalogVersionSchema.optional().meta({
    description:
      'A catalog version (one a run step lists): answer with the tools of that version instead, as the runs pinned to it were shown them; 404 when it is not kept',
  }),
});

/**
 * `/v1/catalog`: the cached tool list of a server, as runs see it, or with `?version=` the tools of
 * one catalog version (`agentq catalog <server> --version <v>`). Cache-only.
 */
export function catalogRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      scope: 'servers',
      path: '/v1/catalog/{serverId}',
      operationId: 'getCatalog',
      summary: 'Cached tools, status and age of a server, or the tools of one catalog version',
      tag: 'catalog',
      params: z.strictObject({ serverId: serverIdSchema }),
      query: getCatalogQuery,
      responses: {
        200: {
          description: 'The catalog; with `version`, the snapshot of that version',
          schema: z.union([catalogViewSchema, catalogSnapshotSchema]),
        },
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params, query }) {
        if (query.version !== undefined) {
          return { body: await client.getCatalogSnapshot(params.serverId, query.version) };
        }
        return { body: await client.getCatalog(params.serverId) };
      },
    }),
  ];
}
