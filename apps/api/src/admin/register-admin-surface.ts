import type { FastifyInstance } from 'fastify';
import { stripExternalLinks } from '../http/strip-external-links.js';
import { ADMIN_SECURITY_HEADERS, csrfRefusal, passesCsrf } from './admin-guard.js';
import { csrfFailure, registerAdminRoutes, type AdminRoutesOptions } from './admin-routes.js';
import { registerOAuthConnectRoutes, type OAuthConnectOptions } from './oauth-connect-routes.js';
import { registerBullBoard, type BoardQueue } from './register-bull-board.js';

/** Options of {@link registerAdminSurface}. */
export interface AdminSurfaceOptions extends AdminRoutesOptions {
  /** The queues Bull Board shows. */
  queues: readonly BoardQueue[];
  /** The catalog page's OAuth "Connect" flow and its callback. */
  oauth: Omit<OAuthConnectOptions, 'client'>;
}

/**
 * Registers the admin pages and Bull Board in one plugin scope, whose hooks give every route in it
 * the admin headers and the CSRF rule. Being hooks of the scope, they apply by the route that
 * serves a request, whatever spelling of `/admin` reached it; each route still declares its own
 * access (see `RouteAccess`).
 */
export async function registerAdminSurface(app: FastifyInstance, options: AdminSurfaceOptions): Promise<void> {
  const { queues, oauth, ...routeOptions } = options;
  await app.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, surface: 'admin' };
    });
    // Every response of the surface, Bull Board's included, carries the security headers; set last
    // so that a plugin's own caching headers cannot loosen them.
    scope.addHook('onSend', async (_request, reply, payload) => {
      void reply.headers(ADMIN_SECURITY_HEADERS);
      // Bull Board's page links web fonts on the internet: the policy blocks them and an offline
      // deployment cannot reach them, so the link goes and the page falls back to system fonts.
      const type = String(reply.getHeader('content-type') ?? '');
      return typeof payload === 'string' && type.startsWith('text/html') ? stripExternalLinks(payload) : payload;
    });
    // The CSRF rule, after the body is parsed (a form's `_csrf`) and before any handler, Bull
    // Board's API included. Only the login form is exempt, by its route's own declaration.
    scope.addHook('preHandler', async (request, reply) => {
      if (request.method === 'GET' || request.method === 'HEAD') return undefined;
      if (request.routeOptions.config.csrfExempt === true) return undefined;
      if (passesCsrf(request, await options.auth.authenticate(request))) return undefined;
      const form = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      return form ? csrfFailure(reply) : csrfRefusal(reply);
    });
    registerAdminRoutes(scope, routeOptions);
    registerOAuthConnectRoutes(scope, { ...oauth, client: routeOptions.client });
    await registerBullBoard(scope, queues);
  });
}
