import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { AgentqError, QUEUE_NAMES, runSpecLimitsOf, type Config, type Logger } from '@agentq/shared';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { Queue } from 'bullmq';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { registerAdminRoutes, sessionOf } from './admin/admin-routes.js';
import { BULL_BOARD_PATH, registerBullBoard } from './admin/register-bull-board.js';
import { bearerToken, tokensMatch } from './auth/token-check.js';
import { fastifyPath, parseRequestPart, type ApiRoute } from './http/api-route.js';
import { errorResponse } from './http/error-response.js';
import { createApiMetrics } from './metrics/create-api-metrics.js';
import { buildOpenApiDocument } from './openapi/build-openapi-document.js';
import { approvalsRoutes } from './routes/approvals-routes.js';
import { catalogRoutes } from './routes/catalog-routes.js';
import { runsRoutes } from './routes/runs-routes.js';
import { schedulesRoutes } from './routes/schedules-routes.js';
import { serversRoutes } from './routes/servers-routes.js';

/** Version reported in the OpenAPI document. */
export const API_VERSION = '0.1.0';

/** Options of {@link buildApi}. */
export interface BuildApiOptions {
  /** `apiToken`, `redisUrl`, `prefix`, `cluster` and `runAttempts` are used. */
  config: Config;
  /** The pino root (or a child) from the shared `createLogger`. */
  logger: Logger;
  /** An existing client to use; the API never closes it. @default one built from `config` */
  client?: AgentqClient;
}

/** Room in a request body for the parts of a run spec besides its input. */
const BODY_ENVELOPE_BYTES = 512 * 1024;

/** The API's request body limit: the run spec input limit plus {@link BODY_ENVELOPE_BYTES}. */
export function apiBodyLimit(config: Pick<Config, 'maxInputBytes'>): number {
  return (config.maxInputBytes ?? 256 * 1024) + BODY_ENVELOPE_BYTES;
}

/** The REST routes, in the order they are documented. */
export function apiRoutes(client: AgentqClient): ApiRoute[] {
  return [
    ...runsRoutes(client),
    ...schedulesRoutes(client),
    ...approvalsRoutes(client),
    ...serversRoutes(client),
    ...catalogRoutes(client),
  ];
}

/**
 * Builds the HTTP control plane (not listening yet): REST under `/v1`, the OpenAPI document,
 * Bull Board, the approvals inbox, `/metrics`, `/healthz` and `/readyz`. Everything but `/healthz`
 * needs the API token: as a bearer header, or for the admin pages as the session cookie the login
 * form sets.
 */
export async function buildApi(options: BuildApiOptions): Promise<FastifyInstance> {
  const apiToken = options.config.apiToken;
  if (!apiToken) {
    throw new AgentqError({
      code: 'CONFIG_INVALID',
      field: 'AGENTQ_API_TOKEN',
      message: 'AGENTQ_API_TOKEN must be set (at least 16 characters) to start the API',
    });
  }
  const ownsClient = !options.client;
  const client =
    options.client ??
    createAgentqClient({
      redisUrl: options.config.redisUrl,
      prefix: options.config.prefix,
      cluster: options.config.cluster,
      runAttempts: options.config.runAttempts,
      runSpecLimits: runSpecLimitsOf(options.config),
      logger: options.logger,
    });
  const queues: Record<string, Queue> = Object.fromEntries(
    Object.values(QUEUE_NAMES).map((name) => [
      name,
      new Queue(name, { connection: client.redis, prefix: client.prefix }),
    ]),
  );
  for (const [name, queue] of Object.entries(queues)) {
    queue.on('error', (error: Error) => options.logger.debug({ queue: name, error: error.message }, 'queue error'));
  }
  const metrics = createApiMetrics({
    redis: client.redis,
    prefix: client.prefix,
    queues,
    logger: options.logger.child({ component: 'metrics' }),
  });

  const app = Fastify({
    loggerInstance: options.logger.child({ component: 'api' }) as unknown as FastifyBaseLogger,
    // The body limit follows the run spec's input limit, with room for the rest of an ordinary
    // spec (patterns, ids and metadata have their own caps): an input at its limit still arrives
    // and gets the schema's named refusal, while a body far over it is refused (413) unparsed.
    bodyLimit: apiBodyLimit(options.config),
  });
  app.addHook('onClose', async () => {
    for (const queue of Object.values(queues)) {
      try {
        await queue.close();
      } catch {
        // the connection may already be gone; nothing else to release
      }
    }
    if (ownsClient) await client.close();
  });
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = errorResponse(error);
    if (status >= 500) request.log.error({ error }, 'request failed');
    if (status === 401) void reply.header('www-authenticate', 'Bearer');
    return reply.status(status).send(body);
  });
  // Unknown paths answer 401 to callers without the token too, so that the route table cannot be
  // probed anonymously; only /healthz and the admin login are open.
  app.setNotFoundHandler((request, reply) => {
    const token = bearerToken(request.headers.authorization);
    if (!request.url.startsWith('/admin') && (!token || !tokensMatch(token, apiToken))) {
      void reply.header('www-authenticate', 'Bearer');
      return reply.status(401).send({
        error: { code: 'UNAUTHORIZED', message: 'Send Authorization: Bearer <AGENTQ_API_TOKEN>' },
      });
    }
    return reply.status(404).send({ error: { code: 'NOT_FOUND', message: 'No such route' } });
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
    void jsonParser(request, text, done);
  });
  await app.register(cookie);
  await app.register(formbody);

  const requireBearer = async (request: FastifyRequest) => {
    const token = bearerToken(request.headers.authorization);
    if (!token || !tokensMatch(token, apiToken)) {
      throw new AgentqError({ code: 'UNAUTHORIZED', message: 'Send Authorization: Bearer <AGENTQ_API_TOKEN>' });
    }
  };

  app.get('/healthz', async () => ({ status: 'ok' }));

  const routes = apiRoutes(client);
  const openApiDocument = buildOpenApiDocument(routes, { version: API_VERSION });
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireBearer);
    scope.get('/readyz', async (_request, reply) => {
      try {
        const answer = await Promise.race([
          client.redis.ping(),
          new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('timeout')), 2_000).unref()),
        ]);
        if (answer === 'PONG') return { status: 'ready' };
      } catch {
        // reported below
      }
      return reply.status(503).send({ error: { code: 'UNAVAILABLE', message: 'Redis does not answer' } });
    });
    scope.get('/metrics', async (_request, reply) => {
      const text = await metrics.render();
      return reply.type(metrics.registry.contentType).send(text);
    });
    scope.get('/v1/openapi.json', async () => openApiDocument);
    for (const route of routes) {
      scope.route({
        method: route.method,
        url: fastifyPath(route.path),
        handler: async (request: FastifyRequest, reply: FastifyReply) => {
          const params = parseRequestPart(route.params, request.params, 'path parameters');
          const query = parseRequestPart(route.query, request.query, 'query');
          const body = parseRequestPart(route.body, request.body, 'request body');
          const result = await route.handler({ params, query, body, request, reply });
          void reply.status(result.status ?? 200);
          return result.body === undefined ? reply.send() : reply.send(result.body);
        },
      });
    }
  });

  registerAdminRoutes(app, { client, apiToken });
  await app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      if (sessionOf(request, apiToken)) return;
      const token = bearerToken(request.headers.authorization);
      if (token && tokensMatch(token, apiToken)) return;
      if (request.method === 'GET' && !request.url.startsWith(`${BULL_BOARD_PATH}/api/`)) {
        return reply.redirect(`/admin/login?next=${encodeURIComponent(request.url)}`, 303);
      }
      // Answered here rather than thrown: Bull Board's plugin installs its own error handler.
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: { code: 'UNAUTHORIZED', message: 'Log in at /admin/login' } });
    });
    await registerBullBoard(scope, queues);
  });
  return app;
}
