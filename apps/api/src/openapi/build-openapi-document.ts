import { z } from 'zod';
import type { ApiRoute } from '../http/api-route.js';
import { shapeErrors } from '../routes/common-schemas.js';

type JsonSchema = Record<string, unknown>;

/** Named schemas shared by the operations, as `components/schemas` holds them. */
type Components = Map<string, JsonSchema>;

const componentRef = '#/components/schemas/';

/**
 * A zod schema as an OpenAPI schema. zod puts a schema with a `meta({ id })` (and any recursive
 * one) under the generated schema's own `$defs`, referenced as `#/$defs/<id>`; inside an OpenAPI
 * document such a reference has no base to resolve against, so every definition is hoisted into
 * `components/schemas` and the references are rewritten to point there.
 */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Components): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  const definitions = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  const names = new Map<string, string>();
  for (const [name, definition] of Object.entries(definitions)) {
    // Generated names (`__schema0`) repeat across schemas: only an identical definition may share one.
    let unique = name.startsWith('__') ? `${io === 'input' ? 'Input' : 'Output'}${name.replace(/^_+/, '')}` : name;
    for (let suffix = 2; ; suffix += 1) {
      const existing = components.get(unique);
      if (existing === undefined || JSON.stringify(existing) === JSON.stringify(definition)) break;
      unique = `${name.replace(/^_+/, '')}${suffix}`;
    }
    names.set(name, unique);
  }
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out: JsonSchema = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
        const name = inner.slice('#/$defs/'.length);
        out[key] = `${componentRef}${names.get(name) ?? name}`;
      } else if (key === 'id' && typeof inner === 'string' && names.has(inner)) {
        // zod copies `meta({ id })` into the definition; the component's name already says it.
        continue;
      } else {
        out[key] = rewrite(inner);
      }
    }
    return out;
  };
  for (const [name, definition] of Object.entries(definitions)) {
    components.set(names.get(name) ?? name, rewrite(definition) as JsonSchema);
  }
  return rewrite(json) as JsonSchema;
}

/** Path and query parameters of a route, from its object schemas. */
function parametersOf(route: ApiRoute, components: Components): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [location, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!schema) continue;
    const json = toJsonSchema(schema, 'input', components);
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
  const components: Components = new Map();
  for (const route of routes) {
    const responses: Record<string, JsonSchema> = {};
    // The route's own descriptions win over the ones its shape implies.
    for (const [status, response] of Object.entries({ ...shapeErrors(route), ...route.responses })) {
      responses[status] = {
        description: response.description,
        ...(response.schema
          ? { content: { 'application/json': { schema: toJsonSchema(response.schema, 'output', components) } } }
          : {}),
      };
    }
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      // The scope the route declares, as the role a bearer token must hold (OpenAPI 3.1 allows
      // scopes on any scheme).
      security: [{ bearerAuth: [route.scope] }],
      parameters: parametersOf(route, components),
      responses,
    };
    if (route.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: toJsonSchema(route.body, 'input', components) } },
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
        'Control plane of agentq: runs, schedules, approvals, MCP servers and their catalog, knowledge bases. Every route needs `Authorization: Bearer <AGENTQ_API_TOKEN>` (or a named token holding the scope the operation lists under `security`); errors are `{ error: { code, message, field? } }`.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }],
    components: {
      schemas: Object.fromEntries([...components].sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
    },
    paths,
  };
}
