import { z } from 'zod';
import type { ApiRoute } from '../http/api-route.js';

type JsonSchema = Record<string, unknown>;

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Path and query parameters of a route, from its object schemas. */
function parametersOf(route: ApiRoute): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = toJsonSchema(schema, 'input');
    const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, property] of Object.entries(properties)) {
      const { description, ...rest } = property;
      out.push({
        name,
        in: location,
        required: location === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  return out;
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the same route table and zod schemas
 * that validate requests (OpenAPI 3.1 uses JSON Schema 2020-12, which is what zod emits).
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[], options: { version: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const responses: Record<string, JsonSchema> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.schema
          ? { content: { 'application/json': { schema: toJsonSchema(response.schema, 'output') } } }
          : {}),
      };
    }
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: parametersOf(route),
      responses,
    };
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: toJsonSchema(route.body, 'input') } },
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'agentq API',
      version: options.version,
      description:
        'Control plane of agentq: runs, schedules, approvals, MCP servers and their catalog, knowledge bases. Every route needs `Authorization: Bearer <AGENTQ_API_TOKEN>`; errors are `{ error: { code, message, field? } }`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
