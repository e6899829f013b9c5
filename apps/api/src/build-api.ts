import { createAgentqClient, type AgentqClient } from '@agentq/client';
import {
  AgentqError,
  contextFromTrace,
  isTracingActive,
  SpanKind,
  withSpan,
  QUEUE_NAMES,
  runSpecLimitsOf,
  secretValuesOf,
  serverPolicyOf,
  type Config,
  type Logger,
} from '@agentq/shared';
import { keyNames, redisAnswers, waitForRedis } from '@agentq/store';
import { OAuthTokenStore } from '@agentq/store';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import { Queue } from 'bullmq';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ADMIN_SECURITY_HEADERS, createAdminAuth } from './admin/admin-guard.js';
import { registerAdminSurface } from './admin/register-admin-surface.js';
import type { BoardQueue } from './admin/register-bull-board.js';
import { AdminSessionStore, SESSION_COOKIE } from './auth/admin-session-store.js';
import { createApiTokenSet } from './auth/api-token-set.js';
import { trackRouteAccess, type RouteAccess } from './auth/route-access.js';
import { bearerToken, unauthorizedError } from './auth/token-check.js';
import { fastifyPath, parseRequestPart, type ApiRoute } from './http/api-route.js';
import { createRouteAuthorizer } from './http/authorize-route.js';
import { errorResponse, UNEXPECTED_ERROR_LOG, unsupportedMediaType } from './http/error-response.js';
import { buildFavicon } from './http/favicon.js';
import { RequestLogController } from './http/request-log.js';
import { createApiMetrics } from './metrics/create-api-metrics.js';
import { buildOpenApiDocument } from './openapi/build-openapi-document.js';
import { approvalsRoutes } from './routes/approvals-routes.js';
import { elicitationsRoutes } from './routes/elicitations-routes.js';
import { serverAuthorizationRoutes } from './routes/server-authorization-routes.js';
import type { OAuthConnectOptions } from './admin/oauth-connect-routes.js';
import { catalogRoutes } from './routes/catalog-routes.js';
import { ROUTE_PARAM_MAX_LENGTH } from './routes/common-schemas.js';
import { runsRoutes } from './routes/runs-routes.js';
import { schedulesRoutes } from './routes/schedules-routes.js';
import { kbsRoutes } from './routes/kbs-routes.js';
import { serversRoutes } from './routes/servers-routes.js';
import { z } from 'zod';

/** Version reported in the OpenAPI document. */
export const API_VERSION = '0.1.0';

/** Options of {@link buildApi}. */
export interface BuildApiOptions {
  /** `apiToken`, `apiTokens`, `loginRateLimit`, `redisUrl`, `prefix`, `cluster` and `runAttempts` are used. */
  config: Config;
  /** The pino root (or a child) from the shared `createLogger`. */
  logger: Logger;
  /** An existing client to use; the API never closes it. @default one built from `config` */
  client?: AgentqClient;
  /** Where server definitions' secrets resolve (the OAuth "Connect" flow). @default process.env */
  env?: Record<string, string | undefined>;
  /** The host the API will listen on, for the OAuth callback without `AGENTQ_API_URL`. @default config.apiHost */
  host?: string;
}

/** Room in a request body for the parts of a run spec besides its input. */
const BODY_ENVELOPE_BYTES = 512 * 1024;

/** The API's request body limit: the run spec input limit plus {@link BODY_ENVELOPE_BYTES}. */
export function apiBodyLimit(config: Pick<Config, 'maxInputBytes'>): number {
  return (config.maxInputBytes ?? 256 * 1024) + BODY_ENVELOPE_BYTES;
}

/** The query of a route that takes none: an unknown key is a `VALIDATION` error naming it. */
const noQuery = z.strictObject({});

/** Whether a content type is JSON (`application/json`, `application/*+json`, any parameters). */
function isJsonContentType(contentType: string | undefined): boolean {
  const mime = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

/** The REST routes, in the order they are documented. */
export function apiRoutes(
  client: AgentqClient,
  oauth: Omit<OAuthConnectOptions, 'client'> = {
    store: undefined,
    env: {},
    allowPrivateNetwork: false,
    allowHosts: [],
    apiUrl: undefined,
  },
): ApiRoute[] {
  return [
    ...runsRoutes(client),
    ...schedulesRoutes(client),
    ...approvalsRoutes(client),
    ...elicitationsRoutes(client),
    ...serversRoutes(client),
    ...serverAuthorizationRoutes({ ...oauth, client }),
    ...catalogRoutes(client),
    ...kbsRoutes(client),
  ];
}

/**
 * Builds the HTTP control plane (not listening yet): REST under `/v1`, the OpenAPI document,
 * Bull Board, the approvals inbox, `/metrics`, `/healthz` and `/readyz`. Every route declares who
 * may call it (`RouteAccess`), checked against the route Fastify matched: everything but the probes,
 * the favicon and the login form needs a token (`AGENTQ_API_TOKEN`, or a named one of
 * `AGENTQ_API_TOKENS`) with the route's scope, as a bearer header, or for the admin pages as the
 * session the login form starts.
 */
export async function buildApi(options: BuildApiOptions): Promise<FastifyInstance> {
  const tokens = createApiTokenSet(options.config);
  const ownsClient = !options.client;
  const client =
    options.client ??
    createAgentqClient({
      redisUrl: options.config.redisUrl,
      prefix: options.config.prefix,
      cluster: options.config.cluster,
      clusterNodes: options.config.clusterNodes,
      runShards: options.config.runShards,
      runAttempts: options.config.runAttempts,
      runSpecLimits: runSpecLimitsOf(options.config),
      logger: options.logger,
      serverPolicy: serverPolicyOf(options.config),
      ...(options.config.kbFileRoot ? { kbFileRoot: options.config.kbFileRoot } : {}),
    });
  // `agent-runs` and `approvals` exist once per run shard; the other queues once.
  const sharded = new Set<string>([QUEUE_NAMES.agentRuns, QUEUE_NAMES.approvals]);
  const shards = client.shards.all();
  const queues: BoardQueue[] = Object.values(QUEUE_NAMES).flatMap((name) =>
    (sharded.has(name) ? shards : [undefined]).map((shard) => ({
      name,
      shard: shard && shards.length > 1 ? shard.label : undefined,
      queue: new Queue(name, { connection: client.redis, prefix: shard?.prefix ?? client.prefix }),
    })),
  );
  for (const { name, queue } of queues) {
    queue.on('error', (error: Error) => options.logger.debug({ queue: name, error: error.message }, 'queue error'));
  }
  const queuesByName: Record<string, Queue[]> = {};
  for (const { name, queue } of queues) (queuesByName[name] ??= []).push(queue);
  const metrics = createApiMetrics({
    redis: client.redis,
    prefix: client.prefix,
    queues: queuesByName,
    logger: options.logger.child({ component: 'metrics' }),
  });

  const app = Fastify({
    loggerInstance: options.logger.child({ component: 'api' }) as unknown as FastifyBaseLogger,
    // One plain line per request (see RequestLogController).
    logController: new RequestLogController(),
    // The body limit follows the run spec's input limit, with room for the rest of an ordinary
    // spec (patterns, ids and metadata have their own caps): an input at its limit still arrives
    // and gets the schema's named refusal, while a body far over it is refused (413) unparsed.
    bodyLimit: apiBodyLimit(options.config),
    routerOptions: { maxParamLength: ROUTE_PARAM_MAX_LENGTH },
    // Errors the router raises before any route or hook runs get the one error shape too.
    frameworkErrors: (error, _request, reply) => {
      const { status, body } = errorResponse(error);
      void (reply as FastifyReply).status(status).send(body);
    },
  });
  // Before any route: every route registered from here on is listed, and must declare its access.
  trackRouteAccess(app);
  app.addHook('onClose', async () => {
    for (const { queue } of queues) {
      try {
        await queue.close();
      } catch {
        // the connection may already be gone; nothing else to release
      }
    }
    if (ownsClient) await client.close();
  });
  app.setErrorHandler((error, request, reply) => {
    const { status, body, unexpected } = errorResponse(error);
    if (unexpected) request.log.error({ error }, UNEXPECTED_ERROR_LOG);
    else if (status >= 500) request.log.error({ error }, 'request failed');
    if (status === 401) void reply.header('www-authenticate', 'Bearer');
    return reply.status(status).send(body);
  });
  // Bodyless POST/DELETE requests often still say `content-type: application/json`; treat an
  // empty body as no body instead of as broken JSON.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    // The default parser refuses broken JSON and prototype-poisoning keys alike; only the first is
    // INVALID_JSON, the second is valid JSON with a key no body may have.
    void jsonParser(request, text, (error, value) => {
      if (!error) {
        done(null, value);
        return;
      }
      done(
        isJson(text)
          ? new AgentqError({
              code: 'VALIDATION',
              message: 'The request body has a forbidden key (__proto__ or constructor.prototype)',
            })
          : new AgentqError({ code: 'INVALID_JSON', message: 'The request body is not valid JSON' }),
        undefined,
      );
    });
  });
  await app.register(cookie);
  await app.register(formbody);
  // Only routes that ask for it are limited (the login form). Counters live in Redis, so every API
  // replica counts the same attempts.
  await app.register(rateLimit, {
    global: false,
    redis: client.redis,
    nameSpace: keyNames(client.prefix).loginRateLimit,
    errorResponseBuilder: (_request, context) =>
      new AgentqError({ code: 'RATE_LIMITED', message: `Too many attempts; retry in ${context.after}` }),
  });

  const sessions = new AdminSessionStore({ redis: client.redis, prefix: client.prefix, tokens });
  const adminAuth = createAdminAuth({ tokens, sessions });
  // Sessions and login counters talk to Redis directly: like every client call, wait (bounded) for
  // the first connect rather than failing a request made right after start.
  const redisReady = async () => {
    if (client.redis.status !== 'ready') await waitForRedis(client.redis, 5_000);
  };
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.surface === 'admin') await redisReady();
  });
  // Every request is authorized by the access its matched route declares; see createRouteAuthorizer.
  app.addHook('onRequest', createRouteAuthorizer({ tokens, adminAuth }));
  // Unknown paths answer 401 to callers who prove no identity (bearer token or login session), so
  // that the route table cannot be probed anonymously. There is no route to judge the path by, so
  // every such answer carries the admin headers, whatever the path looks like.
  app.setNotFoundHandler(async (request, reply) => {
    void reply.headers(ADMIN_SECURITY_HEADERS);
    let known = tokens.authenticate(bearerToken(request.headers.authorization)) !== undefined;
    if (!known && request.cookies[SESSION_COOKIE]) {
      await redisReady();
      known = (await adminAuth.authenticate(request))?.session !== undefined;
    }
    if (!known) {
      void reply.header('www-authenticate', 'Bearer');
      return reply
        .status(401)
        .send(errorResponse(unauthorizedError({ authorization: request.headers.authorization })).body);
    }
    return reply.status(404).send({ error: { code: 'NOT_FOUND', message: 'No such route' } });
  });

  // Probes are open (orchestrators send no token) and answer status words only, nothing else.
  app.get('/healthz', { config: { access: PUBLIC } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { access: PUBLIC } }, async (_request, reply) => {
    // Answered without saying why.
    if (await redisAnswers(client.redis, 2_000)) return { status: 'ready' };
    return reply.status(503).send({ status: 'unavailable' });
  });
  const favicon = buildFavicon();
  app.get('/favicon.ico', { config: { access: PUBLIC } }, async (_request, reply) =>
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(favicon),
  );

  const oauth: Omit<OAuthConnectOptions, 'client'> = {
    store: options.config.secretKey
      ? new OAuthTokenStore({
          redis: client.redis,
          keys: keyNames(client.prefix),
          secretKey: options.config.secretKey,
        })
      : undefined,
    env: options.env ?? process.env,
    allowPrivateNetwork: options.config.allowPrivateFetch,
    allowHosts: options.config.fetchAllowHosts ?? [],
    apiUrl: options.config.apiUrl,
    listenHost: options.host ?? options.config.apiHost,
    clientMetadataUrl: options.config.oauthClientMetadataUrl,
  };
  const routes = apiRoutes(client, oauth);
  const openApiDocument = buildOpenApiDocument(routes, { version: API_VERSION });
  await app.register(async (scope) => {
    scope.get('/metrics', { config: { access: tokenWith('admin') } }, async (_request, reply) => {
      const text = await metrics.render();
      return reply.type(metrics.registry.contentType).send(text);
    });
    scope.get('/v1/openapi.json', { config: { access: tokenWith('any') } }, async () => openApiDocument);
    for (const route of routes) {
      scope.route({
        method: route.method,
        url: fastifyPath(route.path),
        config: { access: tokenWith(route.scope) },
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          // A form or text body would otherwise reach the schema as strings and fail confusingly.
          if (route.body && request.body !== undefined && !isJsonContentType(request.headers['content-type'])) {
            const { status, body } = unsupportedMediaType();
            return reply.status(status).send(body);
          }
          // A server span per API call, continuing the caller's `traceparent`: an enqueue or a
          // decision made over REST joins the caller's trace.
          return await withSpan(
            `${route.method} ${route.path}`,
            {
              kind: SpanKind.SERVER,
              parent: contextFromTrace(incomingTrace(request)),
              attributes: { 'http.request.method': route.method, 'http.route': route.path },
            },
            async (span) => {
              const params = parseRequestPart(route.params, request.params, 'path parameters');
              // A route without query parameters refuses any, as the others refuse unknown ones.
              const query = parseRequestPart(route.query ?? noQuery, request.query, 'query');
              const body = parseRequestPart(route.body, request.body, 'request body');
              const result = await route.handler({ params, query, body, request, reply });
              span.setAttribute('http.response.status_code', result.status ?? 200);
              void reply.status(result.status ?? 200);
              return result.body === undefined ? reply.send() : reply.send(result.body);
            },
          );
        },
      });
    }
  });

  await registerAdminSurface(app, {
    client,
    tokens,
    sessions,
    auth: adminAuth,
    loginRateLimit: options.config.loginRateLimit,
    secretValues: secretValuesOf(options.config),
    queues,
    oauth,
  });
  return app;
}

const PUBLIC: RouteAccess = { kind: 'public' };

function tokenWith(scope: Extract<RouteAccess, { kind: 'token' }>['scope']): RouteAccess {
  return { kind: 'token', scope };
}

/** The caller's W3C trace context, taken up only while this process traces. */
function incomingTrace(request: FastifyRequest): { traceparent: string; tracestate?: string } | undefined {
  const { traceparent, tracestate } = request.headers;
  if (!isTracingActive() || typeof traceparent !== 'string') return undefined;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}

/** Whether `text` parses as JSON at all, whatever keys it has. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
