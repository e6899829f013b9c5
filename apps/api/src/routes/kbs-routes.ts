import { kbSourceInputSchema, kbSourcesInputSchema, type AgentqClient } from '@agentq/client';
import { AgentqError, kbDefinitionSchema, kbDocumentSchema, kbIngestResultSchema, kbNameSchema } from '@agentq/shared';
import { z } from 'zod';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, conflictError, errorBodySchema, notFoundError, validationError } from './common-schemas.js';

const kbParams = z.strictObject({ kb: kbNameSchema });

const kbInfoSchema = kbDefinitionSchema
  .extend({ version: z.number().int(), documents: z.array(kbDocumentSchema), chunks: z.number().int() })
  .meta({ id: 'KnowledgeBase' });

const ingestInfoSchema = z
  .strictObject({
    jobId: z.string(),
    kb: z.string(),
    source: z.string(),
    state: z.enum(['waiting', 'active', 'delayed', 'completed', 'failed', 'unknown']),
    progress: z.strictObject({ written: z.number().int(), total: z.number().int() }).optional(),
    result: kbIngestResultSchema.optional(),
    failedReason: z.string().optional(),
  })
  .meta({ id: 'KbIngest' });

const searchHitSchema = z
  .strictObject({
    kb: z.string(),
    version: z.number().int(),
    documentId: z.string(),
    source: z.string(),
    location: z.strictObject({
      file: z.string().optional(),
      heading: z.string().optional(),
      page: z.number().int().optional(),
    }),
    text: z.string(),
    score: z.number(),
  })
  .meta({ id: 'KbSearchHit' });

/**
 * `/v1/kbs`: knowledge bases. Adding a source only enqueues `kb-ingest` jobs (an indexer does the
 * work); a file path from a caller must lie under `AGENTQ_KB_FILE_ROOT`, or it is refused.
 */
export function kbsRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      scope: 'kbs',
      path: '/v1/kbs',
      operationId: 'listKbs',
      summary: 'List knowledge bases with their current version and documents',
      tag: 'kbs',
      responses: {
        200: { description: 'Knowledge bases', schema: z.strictObject({ kbs: z.array(kbInfoSchema) }) },
        ...commonErrors,
      },
      async handler() {
        return { body: { kbs: await client.listKbs() } };
      },
    }),
    defineRoute({
      method: 'POST',
      scope: 'kbs',
      path: '/v1/kbs',
      operationId: 'createKb',
      summary: 'Create a knowledge base',
      tag: 'kbs',
      body: z.strictObject({ name: kbNameSchema, description: z.string().max(2_000).optional() }),
      responses: {
        201: { description: 'Created', schema: kbDefinitionSchema },
        400: validationError,
        409: conflictError,
        ...commonErrors,
      },
      async handler({ body }) {
        return { status: 201, body: await client.createKb(body) };
      },
    }),
    defineRoute({
      method: 'GET',
      scope: 'kbs',
      path: '/v1/kbs/{kb}',
      operationId: 'getKb',
      summary: 'One knowledge base with its documents',
      tag: 'kbs',
      params: kbParams,
      responses: {
        200: { description: 'The knowledge base', schema: kbInfoSchema },
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params }) {
        return { body: await client.getKb(params.kb) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      scope: 'kbs',
      path: '/v1/kbs/{kb}',
      operationId: 'removeKb',
      summary: 'Remove a knowledge base with every version and chunk',
      tag: 'kbs',
      params: kbParams,
      responses: { 204: { description: 'Removed' }, 404: notFoundError, ...commonErrors },
      async handler({ params }) {
        await client.removeKb(params.kb);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'POST',
      scope: 'kbs',
      path: '/v1/kbs/{kb}/sources',
      operationId: 'addKbSource',
      summary:
        'Queue a URL, or a file or folder under AGENTQ_KB_FILE_ROOT, for ingestion (re-adding unchanged content is a no-op); `{ sources: [...] }` adds several, all or nothing',
      tag: 'kbs',
      params: kbParams,
      body: z.union([kbSourceInputSchema, kbSourcesInputSchema]),
      responses: {
        202: {
          description: 'Queued, one ingest job per file or URL',
          schema: z.strictObject({
            kb: z.string(),
            jobs: z.array(z.strictObject({ jobId: z.string(), source: z.string() })),
            sources: z.array(z.strictObject({ source: z.string(), queued: z.number().int() })),
          }),
        },
        400: validationError,
        404: notFoundError,
        ...commonErrors,
        403: {
          description:
            "FORBIDDEN: a token without the kbs scope, or a file path outside AGENTQ_KB_FILE_ROOT (or no root set): a caller never makes the indexer read the server's files",
          schema: errorBodySchema,
        },
      },
      async handler({ params, body }) {
        // Always the `api` origin: a caller of the API is never the operator, whatever its token.
        const added =
          'sources' in body
            ? await client.addKbSources(params.kb, body.sources, { origin: 'api' })
            : await client.addKbSource(params.kb, body, { origin: 'api' });
        return { status: 202, body: added };
      },
    }),
    defineRoute({
      method: 'GET',
      scope: 'kbs',
      path: '/v1/kbs/{kb}/ingests/{jobId}',
      operationId: 'getKbIngest',
      summary: 'State, progress and outcome of one ingest job',
      tag: 'kbs',
      params: z.strictObject({ kb: kbNameSchema, jobId: z.string().min(1).max(200) }),
      responses: { 200: { description: 'The ingest', schema: ingestInfoSchema }, 404: notFoundError, ...commonErrors },
      async handler({ params }) {
        const info = await client.getKbIngest(params.jobId);
        if (info.kb !== params.kb) {
          throw new AgentqError({
            code: 'NOT_FOUND',
            field: 'jobId',
            message: `no ingest "${params.jobId}" in ${params.kb}`,
          });
        }
        return { body: info };
      },
    }),
    defineRoute({
      method: 'DELETE',
      scope: 'kbs',
      path: '/v1/kbs/{kb}/documents/{documentId}',
      operationId: 'removeKbDocument',
      summary: 'Remove one document (a new version without it)',
      tag: 'kbs',
      params: z.strictObject({
        kb: kbNameSchema,
        documentId: z.string().regex(/^[a-f0-9]{16}$/, 'must be a document id'),
      }),
      responses: {
        200: { description: 'The new version', schema: z.strictObject({ version: z.number().int() }) },
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params }) {
        return { body: await client.removeKbDocument({ kb: params.kb, documentId: params.documentId }) };
      },
    }),
    defineRoute({
      method: 'POST',
      scope: 'kbs',
      path: '/v1/kbs/{kb}/search',
      operationId: 'searchKb',
      summary: 'Rank chunks of a knowledge base for a query (what kb_search returns)',
      tag: 'kbs',
      params: kbParams,
      body: z.strictObject({
        query: z.string().trim().min(1, 'must not be empty').max(2_000),
        limit: z.number().int().min(1).max(50).default(5),
      }),
      responses: {
        200: { description: 'Best chunks first', schema: z.strictObject({ hits: z.array(searchHitSchema) }) },
        400: validationError,
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params, body }) {
        return { body: { hits: await client.searchKbs({ query: body.query, kbs: [params.kb], limit: body.limit }) } };
      },
    }),
  ];
}
