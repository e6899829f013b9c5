import { ValidationError, type ApiScope } from '@agentq/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';

/** One documented response of a route. */
export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
}

/** What a route handler returns: a status (default 200) and a JSON body (none for 204). */
export interface RouteResult {
  status?: number;
  body?: unknown;
}

/** Parsed input of a route handler. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * A REST route: one definition drives the Fastify registration, the zod validation of params,
 * query and body, and the route's entry in the OpenAPI document, so the three cannot drift.
 */
export interface ApiRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** OpenAPI-style path, for example `/v1/runs/{runId}`. */
  path: string;
  operationId: string;
  /**
   * The scope a token needs to call the route. Required: it is attached to the Fastify route and
   * checked against the route Fastify matched, so a route cannot exist without one.
   */
  scope: ApiScope;
  summary: string;
  tag: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  responses: Record<number, RouteResponse>;
  handler(input: RouteInput<unknown, unknown, unknown>): Promise<RouteResult>;
}

/** Defines a route with handler input typed from its schemas. */
export function defineRoute<
  P extends z.ZodType = z.ZodType<Record<string, never>>,
  Q extends z.ZodType = z.ZodType<Record<string, never>>,
  B extends z.ZodType = z.ZodType<undefined>,
>(
  route: Omit<ApiRoute, 'handler' | 'params' | 'query' | 'body'> & {
    params?: P;
    query?: Q;
    body?: B;
    handler(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>): Promise<RouteResult>;
  },
): ApiRoute {
  return route as ApiRoute;
}

/** Validates one part of a request; a failure is a `VALIDATION` error naming the field. */
export function parseRequestPart(schema: z.ZodType | undefined, value: unknown, what: string): unknown {
  if (!schema) return value;
  const parsed = schema.safeParse(value ?? (what === 'request body' ? undefined : {}));
  if (parsed.success) return parsed.data;
  throw ValidationError.fromZod(what, parsed.error);
}

/** `/v1/runs/{runId}` → `/v1/runs/:runId`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
